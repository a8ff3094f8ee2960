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
/// it runs no hooks in the remote; like git's `receive-pack`, it honours the remote's
/// `receive.denyNonFastForwards`.
///
/// A repository with a working folder (its git directory in `.git`) is fetched from the same
/// way, so the same limits hold before any object is read: libgit2's local transport would
/// read every object whole to pack it. It is not pushed to here: pushing moves a branch that
/// may be checked out, which libgit2's transport refuses, as git does by default.
struct LocalRemote {
    private let repository: Repository

    /// The repository at `path`, or in its `.git` folder when `withWorkingFolder`; nil when
    /// there is none.
    init?(_ path: String?, withWorkingFolder: Bool = false) {
        guard let path else { return nil }
        func holdsRepository(_ folder: String) -> Bool {
            ["HEAD", "objects", "refs"].allSatisfy { FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent($0)) }
        }
        let gitDirectory = (path as NSString).appendingPathComponent(".git")
        guard let folder = holdsRepository(path) ? path : withWorkingFolder && holdsRepository(gitDirectory) ? gitDirectory : nil,
            let repository = try? Repository.openBare(at: folder)
        else { return nil }
        self.repository = repository
    }

    /// Copies what the remote's `main` adds to `transfer` (which borrows the store's objects)
    /// into it as one pack, and points `reference` there at it; nil when the remote has no
    /// `main`.
    ///
    /// Every object is held to `limits` by its header before it is read whole (the header of a
    /// delta gives the size it makes): a remote that holds a bomb costs a header's read.
    ///
    /// - Throws: ``TransferFailure/limitExceeded(_:)`` when an object, or all of them, would
    ///   bring more than `limits` allow; ``GitError`` when the remote cannot be read.
    func fetchMain(
        into transfer: Repository, as reference: String, limits: IncomingLimits, progress: RemoteOptions.Progress?,
        remoteReference: String = Fork.main.referenceName
    ) throws -> ObjectID? {
        guard let head = try repository.resolveReference(remoteReference) else { return nil }
        let admission = Admission(limits, of: repository)
        do {
            let arriving = try commits(from: head, lackedBy: transfer, admission: admission)
            let objects = try repository.objectsAdded(by: arriving, admitting: admission.admit)
            try transfer.writePack(objects: objects, from: repository)
            progress?(TransferStatistics(direction: .fetch, objects: objects.count, totalObjects: objects.count, bytes: 0))
        } catch {
            if let exceeded = admission.exceeded { throw TransferFailure.limitExceeded(exceeded) }
            throw error
        }
        try transfer.updateReference(reference, to: head, expecting: nil, logMessage: "forkstore: fetch")
        return head
    }

    /// The commits of the remote's `head` that `transfer` (the store's objects) lacks, each
    /// admitted before it is read, most parents before their children (the pack written from
    /// them does not depend on the order). A commit the store holds has all its ancestors
    /// there too.
    private func commits(from head: ObjectID, lackedBy transfer: Repository, admission: Admission) throws(GitError) -> [ObjectID] {
        var found: [ObjectID] = [], next = [head], seen: Set = [head]
        while let id = next.popLast() {
            guard !transfer.contains(id) else { continue }
            try admission.admit(id)
            found.append(id)
            for parent in try repository.readCommit(id).parents where seen.insert(parent).inserted { next.append(parent) }
        }
        return found.reversed()
    }

    /// Makes `head` the remote's `main`, writing the objects it lacks first; ``PushOutcome/behind(_:)``
    /// when the remote's `main` is not an ancestor of `head` or moved meanwhile.
    func pushMain(_ head: ObjectID, from source: Repository, progress: RemoteOptions.Progress?) throws(GitError) -> PushOutcome {
        try push(head, to: .main, from: source, progress: progress)
    }

    /// Moves the remote ref `target` names to `head`, writing the objects it lacks first: a
    /// fast-forward, or a replacement while the ref is still the lease's commit (see
    /// ``PushTarget``); ``PushOutcome/behind(_:)`` otherwise, or when it moved meanwhile.
    func push(_ head: ObjectID, to target: PushTarget, from source: Repository, progress: RemoteOptions.Progress?) throws(GitError) -> PushOutcome {
        let remoteHead = try repository.resolveReference(target.reference)
        if remoteHead == head { return .accepted }
        let objects: [PackObject]
        if let lease = target.lease {
            guard remoteHead == lease else { return .behind("the remote's \(target.reference) is not what this replica last saw (stale info)") }
            if let refusal = try refusal(replacing: remoteHead, of: target.reference, with: head, from: source) { return .rejected(refusal) }
            let remoteMain = try repository.resolveReference(Fork.main.referenceName)
            objects = try source.objectsToPush(head, replacing: [remoteHead, remoteMain].compactMap { $0 })
        } else {
            guard let found = try source.objectsToPush(head, onto: remoteHead) else { return .remoteHasUnmergedCommits }
            objects = found
        }
        try repository.writePack(objects: objects, from: source)
        progress?(TransferStatistics(direction: .push, objects: objects.count, totalObjects: objects.count, bytes: 0))
        do {
            try repository.updateReference(target.reference, to: head, expecting: remoteHead, logMessage: "forkstore: push")
        } catch let error where [.modified, .exists, .locked].contains(error.code) {
            // Another replica's push holds or has just moved the ref.
            return .behind("the remote's main moved during the push (non-fast-forward)")
        }
        // Every push adds a pack to the remote; roll small ones up as the store does its own.
        let packs = repository.packs().filter { RollUp.rollsUp($0) }
        if packs.count > RollUp.packsBefore { _ = try? repository.rollUp(RollUp.packsToRollUp(packs)) }
        return .accepted
    }

    /// Why the remote refuses to replace its branch `reference`, at `remoteHead`, with `head`,
    /// which does not descend from it: git's `receive-pack` honours
    /// `receive.denyNonFastForwards`, and so does a push here. Nil when it takes it.
    private func refusal(replacing remoteHead: ObjectID?, of reference: String, with head: ObjectID, from source: Repository) throws(GitError) -> String? {
        guard let remoteHead, reference.hasPrefix("refs/heads/"), try repository.configFlag("receive.denyNonFastForwards") == true else { return nil }
        if source.contains(remoteHead), try source.isDescendant(head, of: remoteHead) { return nil }
        return "denying non-fast-forward \(reference) (receive.denyNonFastForwards)"
    }
}

/// What a fetch from a path remote has read so far, against its limits. Each object is
/// admitted before it is read whole: by its header (``Repository/objectHeader(_:)``, which for
/// a delta gives the size it makes), and when it is stored as a delta, by the chain of bases a
/// reader rebuilds first (``DeltaChains``).
private final class Admission {
    private var budget: IncomingBudget
    private let remote: Repository
    private let chains: DeltaChains?
    private var admitted = Set<ObjectID>()
    /// The limit an object broke, once one did.
    private(set) var exceeded: LimitExceeded?

    init(_ limits: IncomingLimits, of remote: Repository) {
        (budget, self.remote) = (IncomingBudget(limits), remote)
        chains = try? DeltaChains(packFolder: remote.gitDirectory + "objects/pack")
    }

    /// Admits an object of the remote, or throws (a ``GitError`` whose cause is ``exceeded``
    /// when a limit was passed).
    func admit(_ id: ObjectID) throws(GitError) {
        guard admitted.insert(id).inserted else { return }
        let limit = budget.limits.maximumObjectSize
        do {
            try budget.admit("object \(id.hex)", size: try remote.objectHeader(id).size)
            guard let chains else { throw GitError(function: "reading \(remote.gitDirectory)objects/pack", rawCode: -1, errorClass: 0, message: "its packs cannot be read") }
            try chains.check(id, limit: limit, object: "object \(id.hex)") { base in
                let size = try remote.objectHeader(base).size
                guard size <= limit else {
                    throw LimitExceeded(.objectSize, maximum: limit, size: size, object: "the delta base of object \(id.hex)")
                }
            }
        } catch let error as LimitExceeded {
            exceeded = error
            throw GitError(function: "admitting \(id.hex)", rawCode: -1, errorClass: 0, message: error.description)
        } catch let error as GitError {
            throw error
        } catch {
            throw GitError(function: "reading \(id.hex)", rawCode: -1, errorClass: 0, message: "\(error)")
        }
    }
}
