import ForkStoreGit
import Foundation

/// The small API the exchange (`ForkStoreExchange`) syncs through.
///
/// Network transfers run in the **transfer repository**, `forkstore-transfer` in the store's git
/// directory: a bare repository that borrows the store's objects (alternates) and receives
/// what a fetch brings. Fetched commits are checked there, and only the objects of commits that
/// passed go into the store: the fetched pack itself when it holds nothing else, or one pack
/// written from them; what failed stays outside the store (under
/// `refs/forkstore/quarantine` of the transfer repository), so the store itself never holds an
/// object `git fsck --strict` would refuse. Transfers never hold the store's lock, and every
/// fork the exchange moves goes through the engine's write path.
extension StoreEngine {
    /// Where a fetch lands before its commits are checked (in the transfer repository).
    static var incomingReference: String { "refs/forkstore/incoming" }
    /// The exact commit being pushed (`main` may move on while the push runs).
    static var outgoingReference: String { "refs/forkstore/outgoing" }
    /// The transfer repository's folder, inside the store's git directory.
    static var transferFolder: String { "forkstore-transfer" }
    /// The copy of a pack as it arrives (``ArrivingPack``), in the transfer repository.
    static var arrivingPackFile: String { "forkstore-arriving.pack" }

    /// Fetches the remote's `main` into the transfer repository and returns its head; nil when
    /// the remote has no `main` yet (an empty remote). A repository in a local folder
    /// (`localPath`), bare or with a working folder, is read directly (see ``LocalRemote``). Throws ``TransferFailure`` when
    /// the transfer fails (sorted where it was received), ``StoreError`` otherwise.
    package func fetchRemoteMain(from url: String, localPath: String? = nil, options remoteOptions: RemoteOptions) throws -> CommitID? {
        let known = try read { session in [try session.headID(of: .main), try session.headID(of: .cloud)] }
        return try withTransferRepository { repository in
            try discardEarlierFetch(in: repository)
            checkedWhileFetching.withLock { $0 = nil }
            if let remote = LocalRemote(localPath, withWorkingFolder: true) {
                do {
                    return try remote.fetchMain(
                        into: repository, as: Self.incomingReference, limits: remoteOptions.limits, progress: remoteOptions.progress
                    ).map(CommitID.init)
                } catch let error as GitError {
                    throw StoreError(error, during: "fetching from \(url)")
                }
            }
            try git("preparing the fetch") { () throws(GitError) in
                // What the store holds, named here too, so the remote sends only what is new
                // (rewritten only when it changed: most syncs find it as it was).
                for (name, id) in zip(["refs/known/main", "refs/known/cloud"], known) where try repository.resolveReference(name) != id {
                    try repository.removeReference(name)
                    if let id { try repository.updateReference(name, to: id, expecting: nil, logMessage: "forkstore: known") }
                }
            }
            // The blobs are checked while they arrive, on a core the fetch leaves free (a head
            // start only: without it, or when it fails, the fetch goes on the same).
            let arriving = try? ArrivingPack(path: repository.gitDirectory + Self.arrivingPackFile)
            let ahead = arriving.flatMap { pack in
                (try? read { session in try session.head(of: .main) }).flatMap { main in
                    layout.startCheckAhead(DataOrigin(arrivingFor: model, near: main), limits: blobLimits, reading: .arriving(pack))
                }
            }
            defer { arriving?.stop() }
            try repository.fetch(
                from: url, refspecs: ["+\(Fork.main.referenceName):\(Self.incomingReference)"], options: remoteOptions,
                copyingTo: ahead == nil ? nil : arriving)
            let head = try git("reading the fetched head") { () throws(GitError) in
                try repository.resolveReference(Self.incomingReference).map(CommitID.init)
            }
            checkedWhileFetching.withLock { $0 = ahead }
            return head
        }
    }

    /// Removes what an earlier fetch left in the transfer repository: its objects, and the
    /// refused head kept for inspection (``quarantinedFetch()``). Every transfer starts here,
    /// so the transfer repository holds at most one fetch, whatever the fetches were.
    private func discardEarlierFetch(in repository: Repository) throws {
        try git("preparing the transfer") { () throws(GitError) in
            try repository.removeReference(Self.incomingReference)
            try repository.removeReference(Self.quarantineReference)
            repository.removeOwnObjects()
        }
        // A copy a killed fetch left.
        unlink(repository.gitDirectory + Self.arrivingPackFile)
    }

    /// The head of the fetch the last sync refused, kept in the transfer repository for
    /// inspection until the next transfer (`git --git-dir <repository> log <reference>`); nil
    /// when there is none.
    package func quarantinedFetch() throws -> (head: CommitID, repository: String, reference: String)? {
        let folder = path + "/" + Self.transferFolder
        guard FileManager.default.fileExists(atPath: folder) else { return nil }
        return try withTransferRepository { repository in
            try git("reading the quarantine") { () throws(GitError) in try repository.resolveReference(Self.quarantineReference) }
                .map { (CommitID($0), folder, Self.quarantineReference) }
        }
    }

    /// Brings a fetched head in: checks every commit the store lacks (halting on an unknown
    /// model version; refusing, and keeping in quarantine, anything that breaks the format),
    /// writes the checked objects into the store, moves `cloud` to the head, then merges
    /// `cloud` into `main`. Returns how many commits were new to `main`, and the merge. With
    /// `trustedOwners`, the fetched history must have been shared by one of them (FORMAT.md §9.3).
    /// `checkProgress` hears how the check of the fetched commits goes.
    ///
    /// With `archive` (the remote's archive of the checkpoint `incoming`'s lineage is rooted
    /// in, fetched by ``fetchArchive(of:from:localPath:options:)``), its old history is checked
    /// the same way first, taken in with it, and kept under the same archive ref here: the base
    /// of a carry-over (FORMAT.md §16).
    ///
    /// The landing listeners (``onLanding(_:)``) hear `main` take the fetch, before this
    /// returns, reporting to `landingProgress`: the query index is brought to the new head.
    package func integrate(
        _ incoming: CommitID, archive: (checkpoint: CommitID, head: CommitID)? = nil, resolvingConflicts resolver: ConflictResolver?,
        trustedOwners: Set<ParticipantKey> = [], checkProgress: IncomingCheckProgress? = nil, landingProgress: RecordProgress? = nil
    ) throws -> (newCommits: Int, merge: MergeOutcome) {
        // What the fetch checked as it arrived, taken whatever this integration finds.
        let early = checkedWhileFetching.withLock { ahead in
            defer { ahead = nil }
            return ahead
        }
        let state = try read { session -> (main: ObjectID, cloud: ObjectID?, trusted: ParticipantsFile?)? in
            let head = try session.head(of: .main), main = head.id.objectID, cloud = try session.headID(of: .cloud)
            // Most syncs find the remote where `cloud` already is, and `main` holding it:
            // nothing to check, write or merge.
            if cloud == incoming.objectID, try main == cloud
                || git("comparing main with cloud", { () throws(GitError) in try session.repository.isDescendant(main, of: incoming.objectID) })
            {
                return nil
            }
            return (main, cloud, try participants(inTree: head.tree, of: head, session: session))
        }
        guard let (main, cloud, trusted) = state else { return (0, .upToDate) }
        let known = [main, cloud].compactMap { $0 }
        let archives = try read { session in try session.archives() }
        try withTransferRepository { repository in
            let transfer = StoreSession(repository: repository, model: model, signature: Signature(name: "", email: ""))
            var arriving: (commits: [ObjectID], objects: Set<ObjectID>)
            do {
                // One memory for both lineages' checks, let go of before the objects move in;
                // it starts with what was checked while the fetch arrived.
                let memory = IncomingCheckMemory()
                // Every blob of the fetch read as it arrived: its pack needs no reading again
                // (an archive's pack, fetched after, was not read).
                if let early, early.finish(into: memory), archive == nil { memory.checkedAheadWhileArriving(for: early.modelVersion) }
                // The old history first: what the lineage's commits are checked against may
                // need it (the participants of the commit a checkpoint stands in for).
                let old = try archive.map { archive in
                    try validateIncoming(
                        archive.head.objectID, notIn: known + archives.values, trusting: trusted, trustedOwners: trustedOwners,
                        archives: archives, in: transfer, memory: memory)
                }
                arriving = try validateIncoming(
                    incoming.objectID, notIn: known, trusting: trusted, trustedOwners: trustedOwners, archives: archives, in: transfer,
                    memory: memory, progress: checkProgress)
                if let old {
                    arriving.commits = old.commits + arriving.commits
                    arriving.objects.formUnion(old.objects)
                }
            } catch let error as StoreError {
                if error.code == .rejectedCommit {
                    options.logger.notice("fetched commits refused; kept under \(Self.quarantineReference) in \(Self.transferFolder)")
                    try? repository.removeReference(Self.quarantineReference)
                    try? repository.updateReference(
                        Self.quarantineReference, to: incoming.objectID, expecting: nil, logMessage: "forkstore: quarantine")
                }
                throw error
            }
            // Under the writer lock: no other writer of ours may take its temporary files for
            // a killed writer's.
            _ = try write { session in
                try git("moving the fetched objects into the store") { () throws(GitError) in
                    guard try !session.repository.adoptPacks(of: repository, holdingOnly: arriving.objects) else { return }
                    // Read back before the transfer repository's copies are removed below.
                    try session.repository.writePack(
                        objects: repository.objectsAdded(by: arriving.commits), from: repository, readingBack: true)
                }
            }
            try git("clearing the transfer repository") { () throws(GitError) in
                try repository.removeReference(Self.quarantineReference)
                repository.removeOwnObjects()
            }
        }
        if let archive { try keepArchive(archive) }
        let newCommits = try read { session in try session.walk(from: incoming.objectID, hiding: main).count }
        try moveCloud(to: incoming)
        let outcome = try landing(progress: landingProgress) {
            try joinRemoteHistory(incoming) ?? merge(from: .cloud, into: .main, resolvingConflicts: resolver, alreadyChecked: incoming)
        }
        return (newCommits, outcome)
    }

    /// A store that holds nothing yet (`main` is still its own empty first commit) takes the
    /// remote's history as it is, rather than merging two unrelated histories: a new replica
    /// joining a remote starts where the others are. Nil when `main` holds anything.
    private func joinRemoteHistory(_ incoming: CommitID) throws -> MergeOutcome? {
        func holdsNothing(_ head: Commit) -> Bool { head.parents.isEmpty && head.id != incoming && head.tree.hex == ObjectID.emptyTreeHex }
        // Most syncs find work in `main`: tell so without the writer lock.
        guard try read({ session in holdsNothing(try session.head(of: .main)) }) else { return nil }
        let (_, newHead) = try advance(.main, kind: .fastForwarded, mergedFrom: .cloud) { _, head in
            holdsNothing(head) ? .move(to: incoming.objectID, as: .fastForwarded) : .nothing
        }
        return newHead.map { .fastForwarded(to: $0.id) }
    }

    /// Commits on `main` that the remote (as last seen in `cloud`) lacks, newest first.
    package func outgoingCommits() throws -> [Commit] {
        try read { session in
            guard let main = try session.headID(of: .main) else { return [] }
            return try session.walk(from: main, hiding: session.headID(of: .cloud)).map { id in try session.commit(id) }
        }
    }

    /// Pushes `head` as the remote's `main`: accepted, behind (another replica pushed first),
    /// or rejected by the server for another reason. A bare repository in a local folder
    /// (`localPath`) is written directly (see ``LocalRemote``); `git://`, `http(s)://` and
    /// `ssh://` get our own pack (``Repository/sendPack(_:toMainOf:options:)``). Throws
    /// ``TransferFailure`` when the transfer fails (sorted where it was received),
    /// ``StoreError`` otherwise.
    ///
    /// With `lease` (the remote's `main` as `cloud` last saw it), the push replaces the
    /// remote's `main` whatever its history (a checkpoint lineage over the old one, FORMAT.md
    /// §16), but only while the remote's `main` is still that commit; otherwise it is
    /// ``PushOutcome/behind(_:)``: fetch, adopt and try again. A server that refuses
    /// non-fast-forward updates makes it ``PushOutcome/rejected(_:)``
    /// (``carryOntoRemoteLineage(resolvingConflicts:)``).
    package func pushMain(
        _ head: CommitID, to url: String, localPath: String? = nil, replacing lease: CommitID?? = nil, options remoteOptions: RemoteOptions
    ) throws -> PushOutcome {
        let target = lease.map { PushTarget.main(replacing: $0?.objectID) } ?? .main
        return try push(head, to: target, url: url, localPath: localPath, options: remoteOptions)
    }

    /// Pushes `head` to the remote ref `target` names (see ``PushTarget``).
    func push(_ head: CommitID, to target: PushTarget, url: String, localPath: String?, options remoteOptions: RemoteOptions) throws -> PushOutcome {
        try withTransferRepository { repository -> PushOutcome in
            try discardEarlierFetch(in: repository)
            if let remote = LocalRemote(localPath) {
                return try git("pushing to \(url)") { () throws(GitError) in
                    try remote.push(head.objectID, to: target, from: repository, progress: remoteOptions.progress)
                }
            }
            if Repository.speaksSmartProtocol(url) {
                return try repository.sendPack(head.objectID, to: target, of: url, options: remoteOptions)
            }
            guard target == .main else {
                return .rejected("replacing the remote's \(target.reference) needs a bare repository in a folder, or a git://, http(s):// or ssh:// remote")
            }
            try git("preparing the push") { () throws(GitError) in
                try repository.removeReference(Self.outgoingReference)
                try repository.updateReference(Self.outgoingReference, to: head.objectID, expecting: nil, logMessage: "forkstore: push")
            }
            let result = try repository.push(
                to: url, refspecs: ["\(Self.outgoingReference):\(Fork.main.referenceName)"], options: remoteOptions)
            if let behind = result.behind { return .behind(behind) }
            return result.rejected.values.first.map(PushOutcome.fromServer) ?? .accepted
        }
    }

    /// Moves `cloud` to a commit the remote now holds (fetched and checked, or just pushed),
    /// creating it on the first sync.
    package func moveCloud(to commit: CommitID) throws {
        if try !hasFork(.cloud) {
            do {
                try createFork(.cloud, at: commit, byExchange: true)
                return
            } catch StoreError.forkAlreadyExists {
                // Another exchange created it a moment ago: move it as usual.
            }
        }
        try advance(.cloud, kind: .synced) { _, head in
            head.id == commit ? .nothing : .move(to: commit.objectID, as: .synced)
        }
    }

    /// Runs `body` with the transfer repository, opened on first use and kept for the engine's
    /// lifetime, one transfer at a time. Callers hold the sync lock (``withSyncLock(waitingAtMost:_:)``)
    /// from the fetch to the push: other syncs of the store, in this process or another, would
    /// otherwise move its references and remove its objects in between.
    func withTransferRepository<Result: Sendable>(_ body: (Repository) throws -> Result) throws -> Result {
        try transfers.withLock { handle in
            if let repository = handle { return try body(repository) }
            // A fetch writes the transfer repository before any lock is taken.
            try requireWritable()
            let repository = try read { session in
                try git("opening the transfer repository") { () throws(GitError) in
                    try Repository.openBorrowing(from: session.repository, at: path + "/" + Self.transferFolder)
                }
            }
            handle = repository
            return try body(repository)
        }
    }
}
