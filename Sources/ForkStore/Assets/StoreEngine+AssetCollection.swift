import ForkStoreGit
import Foundation

/// Collection: removing from the asset folder the bytes no history, pin or recent add needs.
///
/// Kept: every asset a reference names (well-formed or not) in any commit reachable from any
/// reference of the store (every fork, `cloud` and the unsynced commits of `main`, and any
/// reference another tool made), and from the transfer repository's references (a refused
/// fetch in quarantine) when no sync is using it; every pinned asset; and every object whose
/// file changed within the grace period, as `git gc` keeps loose objects younger than its
/// prune expiry. The grace covers an asset added but not yet referenced by a commit: its file
/// is new, and adding it again renames a new file over it (``AssetFolder/add(maximumSize:next:)``).
///
/// Nothing is removed on a doubt: a history that cannot be walked, or a pins file that cannot
/// be read, fails the collection before anything is removed. An object is set aside (renamed
/// into `tmp/`) before it is removed, and put back if it turns out new then, so an add racing
/// the collection always leaves its object in place.
extension StoreEngine {
    /// How long an object stays, referenced or not, after its file was written: one hour.
    package static var assetGracePeriod: Duration { .seconds(3600) }

    /// Removes the assets nothing keeps (see above), older than `gracePeriod` by the store's
    /// wall clock (``StoreOptions/wallClock``).
    package func collectAssets(gracePeriod: Duration = StoreEngine.assetGracePeriod) throws -> AssetCollection {
        try requireWritable()
        let folder = assetFolder
        guard FileManager.default.fileExists(atPath: folder.root) else { return AssetCollection() }
        let grace = Double(gracePeriod.components.seconds) + Double(gracePeriod.components.attoseconds) / 1e18
        let cutoff = options.wallClock().addingTimeInterval(-grace)
        let temporary = AssetFolderListing.temporaryFiles(in: folder)
        var oldPartials: [(id: AssetID, path: String)] = []
        for file in temporary {
            switch file.kind {
            case .setAside(let id):
                // A collection killed between setting an object aside and removing it (or one
                // running now, which then keeps it): put it back and decide again.
                try? folder.makeFolder((folder.path(of: id) as NSString).deletingLastPathComponent)
                _ = Self.putBack(file.path, to: folder.path(of: id))
            case .adding where file.modified < cutoff:
                unlink(file.path)  // an add killed before it finished
            case .partial(let id) where file.modified < cutoff:
                oldPartials.append((id, file.path))
            case .adding, .partial:
                continue
            }
        }
        let objects = AssetFolderListing.objects(in: folder)
        let old = objects.filter { $0.modified < cutoff }
        var result = AssetCollection(kept: objects.count)
        guard !old.isEmpty || !oldPartials.isEmpty else { return result }

        let kept = try keptAssets()
        for partial in oldPartials where !kept.contains(partial.id) {
            unlink(partial.path)  // an abandoned download of an asset nothing needs
        }
        for object in old where !kept.contains(object.id) {
            try StoreThread.checkCancellation()
            if let freed = removeUnlessWrittenAgain(object, cutoff: cutoff) {
                result.removed += 1
                result.kept -= 1
                result.bytesFreed += freed
            }
        }
        if result.removed > 0 {
            options.logger.debug("collected \(result.removed) assets (\(result.bytesFreed) bytes); kept \(result.kept)")
        }
        return result
    }

    /// The ids of every asset a reference in the store's history names, and every pinned one.
    private func keptAssets() throws -> Set<AssetID> {
        let pins = try AssetPins.read(gitDirectory: path)
        var reachability = AssetReachability()
        let repository = try git("opening the store to collect assets") { () throws(GitError) in try Repository.openBare(at: path) }
        let heads = try git("listing the store's references") { () throws(GitError) in try repository.references(withPrefix: "refs/") }
        for head in heads { try reachability.walk(from: head.target, in: repository) }
        // The transfer repository's references, under the sync lock, which every sync holds
        // while it changes them. A sync running now is left alone: the assets it brings are
        // new files, within the grace period, and it replaces the quarantine anyway.
        let transfer = path + "/" + Self.transferFolder
        if FileManager.default.fileExists(atPath: transfer) {
            _ = try withSyncLock(waitingAtMost: .zero) {
                let repository = try git("opening the transfer repository") { () throws(GitError) in try Repository.openBare(at: transfer) }
                let heads = try git("listing the transfer references") { () throws(GitError) in
                    try repository.references(withPrefix: "refs/")
                }
                for head in heads { try reachability.walk(from: head.target, in: repository) }
            }
        }
        return reachability.ids.union(pins.map(\.id))
    }

    /// Sets an object aside, then removes it unless its file turns out to have been written
    /// again since it was listed (an add of the same bytes), in which case it goes back.
    /// Returns the bytes freed; nil when it was kept or already gone.
    private func removeUnlessWrittenAgain(_ object: AssetFolderListing.Object, cutoff: Date) -> Int? {
        let aside = AssetFolderListing.setAsidePath(of: object.id, in: assetFolder)
        guard rename(object.path, aside) == 0 else { return nil }
        guard let file = AssetFolderListing.status(of: aside), file.modified < cutoff else {
            if !Self.putBack(aside, to: object.path) {
                options.logger.notice("could not put asset \(object.id) back from \(aside); the next collection will")
            }
            return nil
        }
        guard unlink(aside) == 0 else { return nil }
        return file.size
    }

    /// Puts a set-aside object back, never over a copy written since (an add or a download
    /// that renamed a fresh, checked copy into place): a hard link fails when the name is
    /// taken, and the set-aside copy, the same bytes, then goes. False if it could not.
    private static func putBack(_ aside: String, to target: String) -> Bool {
        guard link(aside, target) == 0 || errno == EEXIST else { return false }
        return unlink(aside) == 0
    }
}
