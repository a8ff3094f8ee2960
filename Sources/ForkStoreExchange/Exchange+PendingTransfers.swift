import ForkStore
import Foundation

/// What is still to move, worked out from the store, for a status display in a process that
/// runs no sync (`forknotes status`).
extension Exchange {
    /// The assets still to move, with how far each has come, worked out from the store alone
    /// (no network): the uploads the next push must make (the assets its commits bring that
    /// are not known to be on the remote; for a path remote, those its folder lacks), the
    /// downloads an eager ``ExchangeOptions/assetDownloads`` still wants, and what
    /// ``fetchAsset(_:)`` is bringing now. A transfer an interrupted process left half-way
    /// counts the bytes it kept, where they can be read (a path remote's partial file for an
    /// upload, the store's for a download).
    ///
    /// ``ExchangeStatus/pendingTransfers`` follows the transfers of this exchange as they run;
    /// this also knows what earlier processes left. Runs on the exchange's own thread.
    public func pendingAssetTransfers() async throws(ExchangeError) -> [AssetTransferProgress] {
        let result: Result<[AssetTransferProgress], ExchangeError> = await withCheckedContinuation { continuation in
            assetQueue.async {
                continuation.resume(returning: Result { () throws(ExchangeError) in try self.pendingNow() })
            }
        }
        return try result.get()
    }

    private func pendingNow() throws(ExchangeError) -> [AssetTransferProgress] {
        let engine = store.engine
        let folder = engine.assetFolder
        var pending: [AssetTransferProgress] = []
        let outgoing = try step { try engine.outgoingCommits() }
        if !outgoing.isEmpty {
            let remoteFolder: AssetFolder? =
                if case .folder(let repository)? = try? remote.assetEndpoint() {
                    AssetFolder(gitDirectory: PathAssetTransport.gitDirectory(of: repository))
                } else {
                    nil
                }
            for reference in try step({ try engine.assets(introducedBy: outgoing) }) {
                let asset = reference.asset
                if let remoteFolder, remoteFolder.contains(asset.id, size: asset.size) { continue }
                let kept = min(asset.size, remoteFolder.map { Self.length(of: $0.partialPath(of: asset.id)) } ?? 0)
                pending.append(AssetTransferProgress(direction: .upload, asset: asset, bytes: kept, totalBytes: asset.size))
            }
        }
        if let wanted = options.assetDownloads.wanted {
            let head = try step { try store.head(of: .main).id }
            let since = Self.readMark(folder.root + "/" + Self.downloadMarkName)
            if since != head {
                let changed = try step { () throws -> [ReferencedAsset] in
                    do { return try engine.assets(changedFrom: since, to: head) } catch { return try engine.assets(changedFrom: nil, to: head) }
                }
                for reference in changed where !folder.contains(reference.asset.id, size: reference.asset.size) && wanted(reference) {
                    let asset = reference.asset
                    let kept = min(asset.size, Self.length(of: folder.partialPath(of: asset.id)))
                    pending.append(AssetTransferProgress(direction: .download, asset: asset, bytes: kept, totalBytes: asset.size))
                }
            }
        }
        let listed = Set(pending.map { "\($0.direction)\($0.asset.id)" })
        pending += status.fetchTransfers.filter { !listed.contains("\($0.direction)\($0.asset.id)") }
        return pending
    }

    /// A file's length; 0 when it is missing.
    private static func length(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
