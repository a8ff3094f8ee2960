import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import ForkStoreLocks

/// The `asset-push` mode: a record collection of `AttachmentNote`s holding the assets read
/// from `file` (added on the first run only), synced with `url`, so the assets are uploaded
/// before the push. A file becomes the asset of record `big`; a folder's files become one
/// record each, named by the file, saved in one commit. Prints "done added", then "done
/// uploaded N" as the upload's progress events arrive (N: the bytes of the object moving, the
/// first one being where a resumed upload starts), then "done seconds S" with the sync's wall
/// time and "done synced N" with the assets the sync uploaded. `pause` waits between
/// megabytes, so a test can kill the process half-way. `assetsURL` is the remote's
/// (``Remote/assetsURL``): a Git LFS endpoint, say; nil derives it from `url`.
func runAssetPush(store path: String, url: String, file: String, pause: Duration, assetsURL: String?) async throws {
    let store = try await openOrCreate(path)
    var isFolder: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: file, isDirectory: &isFolder)
    let files = isFolder.boolValue
        ? try FileManager.default.contentsOfDirectory(atPath: file).sorted().map { ($0, file + "/" + $0) } : [("big", file)]
    var notes: [AttachmentNote] = []
    for (id, source) in files {
        guard try await store.record(id) == nil else { continue }
        let asset = try addTestAsset(to: store, contentsOf: source)
        notes.append(AttachmentNote(id: id, title: "an attachment", file: asset))
    }
    if !notes.isEmpty { try await store.save(notes) }
    acknowledge("added")
    let exchange = Exchange(records: store, remote: try Remote(url, assetsURL: assetsURL), options: options(pause: pause))
    let printer = printProgress(of: exchange)
    let started = ContinuousClock.now
    let report = try await exchange.sync()
    let seconds = (ContinuousClock.now - started).seconds
    await printer?.drain()
    acknowledge("seconds \(seconds)")
    acknowledge("synced \(report.uploadedAssets)")
}

/// The `asset-fetch` mode: syncs the record collection at `path` (created if missing) with
/// `url` lazily, then fetches the assets of every record holding one, in one call. Prints
/// "done synced", then "done downloaded N" as progress events arrive (the first one being
/// where a resumed download starts), then "done seconds S" with the fetch's wall time and
/// "done fetched PATH" with each local file, in the records' order. `assetsURL` as for
/// `asset-push`.
func runAssetFetch(store path: String, url: String, pause: Duration, assetsURL: String?) async throws {
    let store = try await openOrCreate(path)
    let exchange = Exchange(records: store, remote: try Remote(url, assetsURL: assetsURL), options: options(pause: pause))
    try await exchange.sync()
    acknowledge("synced")
    let assets = try await store.records().sorted { $0.id < $1.id }.compactMap(\.file)
    guard !assets.isEmpty else { fail("no record holds an asset") }
    let printer = printProgress(of: exchange)
    let started = ContinuousClock.now
    let files = try await exchange.fetchAssets(assets)
    let seconds = (ContinuousClock.now - started).seconds
    await printer?.drain()
    acknowledge("seconds \(seconds)")
    for file in files { acknowledge("fetched \(file.path)") }
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

/// Prints the exchange's progress events, unless `FORKSTORE_STRESS_QUIET` is set (the
/// benchmarks: an app listening to every event would not print a line for each).
private func printProgress(of exchange: Exchange) -> ProgressPrinter? {
    guard ProcessInfo.processInfo.environment["FORKSTORE_STRESS_QUIET"] == nil else { return nil }
    return ProgressPrinter(exchange.events())
}

/// Prints the progress events of an exchange as they arrive, on a task of its own.
final class ProgressPrinter: Sendable {
    private final class LastPrinted: Sendable {
        let time = Locked(ContinuousClock.now)
    }

    private let task: Task<Void, Never>
    private let lastPrinted = LastPrinted()

    init(_ events: AsyncStream<ExchangeEvent>) {
        let lastPrinted = self.lastPrinted
        task = Task {
            for await event in events {
                guard case .assetProgress(let progress) = event else { continue }
                acknowledge("\(progress.direction == .upload ? "uploaded" : "downloaded") \(progress.bytes)")
                lastPrinted.time.withLock { $0 = .now }
            }
        }
    }

    /// Waits until the events published so far are printed (none for 300 ms; at most 10 s, a
    /// slow sanitized run prints them well behind the transfer), then stops.
    func drain() async {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, ContinuousClock.now - lastPrinted.time.withLock({ $0 }) < .milliseconds(300) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        task.cancel()
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
