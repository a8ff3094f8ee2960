import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation

/// The `asset-push` mode: a record collection of `AttachmentNote`s whose record `big` holds
/// the asset read from `file` (added on the first run only), synced with `url`, so the asset
/// is uploaded before the push. Prints "done added", then "done uploaded N" as the upload's
/// progress events arrive (N: the bytes in the remote's partial file, the first one being
/// where a resumed upload starts), then "done synced N" with the assets the sync uploaded.
/// `pause` waits between megabytes, so a test can kill the process half-way.
func runAssetPush(store path: String, url: String, file: String, pause: Duration) async throws {
    let store = try await openOrCreate(path)
    if try await store.record("big") == nil {
        let asset = try addTestAsset(to: store, contentsOf: file)
        try await store.save(AttachmentNote(id: "big", title: "a large attachment", file: asset))
    }
    acknowledge("added")
    let exchange = Exchange(records: store, remote: try Remote(url), options: options(pause: pause))
    let printer = printProgress(of: exchange)
    let report = try await exchange.sync()
    printer.cancel()
    acknowledge("synced \(report.uploadedAssets)")
}

/// The `asset-fetch` mode: syncs the record collection at `path` (created if missing) with
/// `url` lazily, then fetches the asset of record `big`. Prints "done synced", then "done
/// downloaded N" as progress events arrive (the first one being where a resumed download
/// starts), then "done fetched PATH" with the local file.
func runAssetFetch(store path: String, url: String, pause: Duration) async throws {
    let store = try await openOrCreate(path)
    let exchange = Exchange(records: store, remote: try Remote(url), options: options(pause: pause))
    try await exchange.sync()
    acknowledge("synced")
    guard let asset = try await store.record("big")?.file else { fail("record 'big' holds no asset") }
    let printer = printProgress(of: exchange)
    let file = try await exchange.fetchAsset(asset)
    printer.cancel()
    acknowledge("fetched \(file.path)")
}

private func openOrCreate(_ path: String) async throws -> RecordStore<AttachmentNote> {
    FileManager.default.fileExists(atPath: path)
        ? try await RecordStore<AttachmentNote>.open(at: path) : try await RecordStore<AttachmentNote>.create(at: path)
}

private func options(pause: Duration) -> ExchangeOptions {
    var options = ExchangeOptions()
    options.assetPause = pause
    return options
}

private func printProgress(of exchange: Exchange) -> Task<Void, Never> {
    let events = exchange.events()
    return Task {
        for await event in events {
            guard case .assetProgress(let progress) = event else { continue }
            acknowledge("\(progress.direction == .upload ? "uploaded" : "downloaded") \(progress.bytes)")
        }
    }
}
