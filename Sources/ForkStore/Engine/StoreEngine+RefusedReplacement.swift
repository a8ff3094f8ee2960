import ForkStoreGit
import Foundation

/// A remote that refuses to have its `main` replaced (FORMAT.md §16.6): a server that refuses
/// non-fast-forward updates (`receive.denyNonFastForwards`, a protected branch) or the archive
/// ref, while its `main` is still what `cloud` last saw. No retry changes that, so `main`'s
/// checkpoint lineage goes back onto the remote's lineage, with nothing lost, and the replica
/// syncs with that remote by fast-forwards from then on.
extension StoreEngine {
    /// The file in the git directory naming, one URL a line, the remotes that refused.
    static let refusedReplacementsFile = "forkstore-refused-replacements"

    /// Moves `main`, on a checkpoint lineage that shares no history with `cloud`, onto
    /// `cloud`: one commit whose one parent is `cloud` and whose tree is `main`'s with
    /// `cloud`'s changes carried onto it (``carryOver(_:onto:resolver:in:)`` with `main`
    /// winning, the direction whose base is the old history both hold: `main`'s archive
    /// against `cloud`), `Carried-From` naming `main`'s head. The archive ref of `main`'s
    /// checkpoint stays, so the old head it keeps is not freed. Up to date when `main` needs
    /// no moving (it shares history with `cloud`, or neither is on a checkpoint lineage).
    package func carryOntoRemoteLineage(resolvingConflicts resolver: ConflictResolver?) throws -> MergeOutcome {
        var conflicts: [MergeConflict] = []
        var wrote = false
        let (_, newHead) = try advance(.main, kind: .merged, mergedFrom: .cloud) { session, main in
            (conflicts, wrote) = ([], false)
            guard let cloudID = try session.headID(of: .cloud), cloudID != main.id.objectID else { return .nothing }
            let cloud = try session.commit(cloudID)
            guard try session.areUnrelated(main.id.objectID, cloudID), try session.lineageRoot(of: main.id.objectID).isCheckpoint else {
                return .nothing
            }
            let carry = try carryOver(cloud, onto: main, resolver: resolver, in: session)
            conflicts = carry.conflicts
            let tree = carry.commit?.tree ?? main.tree
            if tree == cloud.tree { return .move(to: cloudID, as: .fastForwarded) }
            let merge = carry.commit.map { CommitMessage.parse($0.message).trailers.filter { Self.carriedMergeKeys.contains($0.key) } } ?? []
            let message = try stampedMessage(
                "Carry over onto the remote's history", tree: tree, after: [cloud, main], in: session,
                merge + [Trailer(key: TrailerKey.carriedFrom, value: main.id.hex)])
            wrote = true
            return .commit(tree: tree, parents: [cloudID], message: message)
        }
        guard let newHead else { return .upToDate }
        options.logger.notice("main moved back onto the remote's history at \(newHead.id.short)")
        return wrote ? .merged(newHead, conflicts: conflicts) : .fastForwarded(to: newHead.id)
    }

    /// The merge trailers of a carry-over (FORMAT.md §16.5) that a carry onto the remote's
    /// history keeps.
    private static let carriedMergeKeys: Set = [
        TrailerKey.mergeStrategy, TrailerKey.mergeStrategies, TrailerKey.mergeConflicts, TrailerKey.mergeConflict,
    ]

    /// Whether the remote at `url` refused to have its `main` replaced before
    /// (``rememberRefusedReplacement(by:reason:)``).
    package func refusesReplacement(_ url: String) throws -> Bool {
        try refusedReplacements().contains(url)
    }

    /// Notes that the remote at `url` refused to have its `main` replaced, so that later
    /// syncs carry `main` onto its lineage without trying again. Written whole and renamed
    /// into place: a crash leaves the old list or the new one.
    package func rememberRefusedReplacement(by url: String, reason: String) throws {
        try requireWritable()
        options.logger.warning("the remote \(url) refuses to have its main replaced (\(reason)); main stays on its history")
        var urls = try refusedReplacements()
        guard urls.insert(url).inserted else { return }
        let file = try refusedReplacementsPath()
        let text = urls.sorted().map { $0 + "\n" }.joined()
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw StoreError.fileSystem(path: file, reason: "it could not be written: \(error.localizedDescription)")
        }
    }

    /// The remotes that refused to have their `main` replaced; while one did, compacting on
    /// one's own (in `pack()`) gains nothing, since the next sync carries `main` back.
    func refusedReplacements() throws -> Set<String> {
        let file = try refusedReplacementsPath()
        guard let data = FileManager.default.contents(atPath: file) else { return [] }
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    private func refusedReplacementsPath() throws -> String {
        try read { session in session.repository.gitDirectory } + Self.refusedReplacementsFile
    }
}
