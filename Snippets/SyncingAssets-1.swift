import ForkStore
import ForkStoreExchange

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var title: String
    var picture: Asset?
}

let notes = try RecordStore<Note>.open(at: "/tmp/notes.store")
var options = ExchangeOptions()
options.assetDownloads = .eager(where: { reference in reference.pointer == "/picture" })
let exchange = Exchange(records: notes, remote: try Remote("/tmp/notes-remote.git"), options: options)
let report = try await exchange.sync()
print("uploaded \(report.uploadedAssets) assets, downloaded \(report.downloadedAssets)")
if let picture = try notes.record("cat")?.picture {
    let file = try await exchange.fetchAsset(picture)  // at once when it is here already
    print("the picture is at \(file.path)")
}
