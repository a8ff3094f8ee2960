import ForkStore
import ForkStoreExchange

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var title: String
}

let store = try RecordStore<Note>.open(at: "/tmp/notes.store")
let remote = try Remote("git://sync.example.com/notes.git")
let exchange = Exchange(store: store, remote: remote)
try await exchange.sync()                 // once
exchange.start(every: .seconds(60))       // periodically
exchange.syncAfterChanges()               // after local changes to main, debounced
