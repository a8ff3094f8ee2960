import ForkStore
import ForkStoreExchange

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var title: String
}

func syncCountingOfflineAttempts(_ exchange: Exchange, times: Int) async throws -> Int {
    var offline = 0
    for _ in 0..<times {
        do {
            try await exchange.sync()
        } catch ExchangeError.offline {
            offline += 1
        } catch {
            throw error  // without it, Swift 6.3 crashes compiling this function
        }
    }
    return offline
}

let store = try RecordStore<Note>.open(at: "/tmp/notes.store")
let exchange = Exchange(store: store, remote: try Remote("/tmp/remote.git"))
print(try await syncCountingOfflineAttempts(exchange, times: 3))
