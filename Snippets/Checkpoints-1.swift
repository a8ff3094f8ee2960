import ForkStore
import ForkStoreExchange

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var title: String
}

var storeOptions = StoreOptions()
storeOptions.history = .keepCommits(10_000)
let store = try RecordStore<Note>.open(at: "/tmp/notes.store", options: storeOptions)
let exchange = Exchange(
    store: store, remote: try Remote("git://sync.example.com/notes.git"),
    options: ExchangeOptions(compactionInterval: .seconds(86_400)))
let report = try await exchange.sync()
if let checkpoint = report.checkpoint { print("history compacted to \(checkpoint.short)") }
