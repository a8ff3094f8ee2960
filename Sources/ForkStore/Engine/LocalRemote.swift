import ForkStoreGit
import Foundation

/// A remote that is a bare repository in a local folder, read and written directly rather than
/// through libgit2's local transport, so that a sync costs what its change costs: libgit2's
/// transport marks every tree and blob of the other side's head as already there before it
/// packs anything (a walk of the whole store, ~65,000 trees at 100,000 records), where this
/// packs only the objects along the paths the new commits changed (the tree differences).
///
/// What is fetched lands in the transfer repository and is checked there like anything from a
/// network remote. A push writes one pack into the remote (on disk, with its index, before
/// the remote's `main` moves) and moves `main` with a compare-and-swap, so a replica that
/// pushed in between makes this push a refusal, not a loss. Like libgit2's local transport,
/// it runs no hooks in the remote. Folders that are not bare repositories use the transport.
struct LocalRemote {
    private let repository: Repository

    init?(_ path: String?) {
        guard let path,
            ["HEAD", "objects", "refs"].allSatisfy({ FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent($0)) }),
            let repository = try? Repository.openBare(at: path)
        else { return nil }
        self.repository = repository
    }

    /// Copies what the remote's `main` adds to `known` (the store's heads) into `transfer` as
    /// one pack, and points `reference` there at it; nil when the remote has no `main`.
    func fetchMain(
        into transfer: Repository, knowing known: [ObjectID], as reference: String, progress: RemoteOptions.Progress?
    ) throws(GitError) -> ObjectID? {
        guard let head = try repository.resolveReference(Fork.main.referenceName) else { return nil }
        let arriving = try repository.walk(from: head, hiding: known.filter(repository.contains)).reversed()
        let objects = try repository.objectsAdded(by: Array(arriving))
        try transfer.writePack(objects: objects, from: repository)
        progress?(TransferStatistics(direction: .fetch, objects: objects.count, totalObjects: objects.count, bytes: 0))
        try transfer.updateReference(reference, to: head, expecting: nil, logMessage: "forkstore: fetch")
        return head
    }

    /// Makes `head` the remote's `main`, writing the objects it lacks first; ``PushOutcome/behind(_:)``
    /// when the remote's `main` is not an ancestor of `head` or moved meanwhile.
    func pushMain(_ head: ObjectID, from source: Repository, progress: RemoteOptions.Progress?) throws(GitError) -> PushOutcome {
        let remoteHead = try repository.resolveReference(Fork.main.referenceName)
        guard let objects = try source.objectsToPush(head, onto: remoteHead) else { return .remoteHasUnmergedCommits }
        try repository.writePack(objects: objects, from: source)
        progress?(TransferStatistics(direction: .push, objects: objects.count, totalObjects: objects.count, bytes: 0))
        do {
            try repository.updateReference(Fork.main.referenceName, to: head, expecting: remoteHead, logMessage: "forkstore: push")
        } catch let error where [.modified, .exists, .locked].contains(error.code) {
            // Another replica's push holds or has just moved the ref.
            return .behind("the remote's main moved during the push (non-fast-forward)")
        }
        // Every push adds a pack to the remote; roll small ones up as the store does its own.
        let packs = repository.packs()
        if packs.count > RollUp.packsBefore { _ = try? repository.rollUp(RollUp.packsToRollUp(packs)) }
        return .accepted
    }
}
