import Foundation
import ForkStoreGit

/// What compacting a fork's history did (see <doc:HistoryHorizon>).
public struct Compaction: Sendable, Hashable {
    /// The fork compacted.
    public let fork: Fork
    /// The horizon: the commit the checkpoint stands in for.
    public let horizon: CommitID
    /// The checkpoint: the root commit of the fork's new history, with the horizon's data.
    public let checkpoint: CommitID
    /// The fork's head before: what the archive ref keeps (until the policy drops it).
    public let oldHead: CommitID
    /// The fork's head after: the old head replayed onto the checkpoint, with the same data.
    public let newHead: CommitID
    /// How many commits after the horizon were replayed onto the checkpoint.
    public let replayed: Int
    /// The other forks moved onto the new history (their own commits replayed with the same
    /// data), by name.
    public internal(set) var movedForks: [Fork] = []
    /// Each old commit at or after the horizon on the fork's first-parent history, and its
    /// copy on the new history (the horizon's copy is the checkpoint).
    let copies: [CommitID: CommitID]

    /// The archive ref that keeps the old head: `refs/forkstore/archive/<checkpoint>`.
    public var archiveReference: String { Checkpoint.archiveReference(of: checkpoint) }
}

extension StoreEngine {
    /// Compacts `fork` at `horizon` (compaction step 2 of FORMAT.md §16): writes the checkpoint
    /// K of C = `horizon`, replays the first-parent chain after C onto K as single-parent
    /// commits with the same tree, message and author and committer, points the archive ref at
    /// the old head, then moves the fork to the new head by compare-and-swap. Nothing is
    /// deleted, and the new head is read back before any ref moves: a SIGKILL at any point
    /// leaves the fork on its old lineage or on the new one. Nil when there is nothing to
    /// compact (C is the fork's root).
    package func checkpoint(_ fork: Fork, at horizon: CommitID) throws -> Compaction? {
        try Self.refuseAppWrites(to: fork)
        let outcome = try write { session in try compactLocked(fork, at: horizon, in: session) }
        if let outcome { published(outcome) }
        return outcome
    }

    /// ``checkpoint(_:at:)`` under the writer lock: in a shared store only an owner compacts.
    /// Compacting `main` moves the other forks (not `cloud`, which names what the remote
    /// holds) onto the new history.
    func compactLocked(_ fork: Fork, at horizon: CommitID, in session: StoreSession) throws -> Compaction? {
        try requireOwnerToCompact(fork, in: session)
        for _ in 1...options.maximumWriteAttempts {
            guard var planned = try compaction(of: fork, at: horizon, in: session) else { return nil }
            guard try moveReference(of: fork, to: planned.newHead.objectID, expecting: planned.oldHead.objectID, in: session) else {
                continue
            }
            if fork == .main { planned.movedForks = try moveForks(after: planned, in: session) }
            return planned
        }
        throw StoreError.concurrentUpdate(fork: fork.name, attempts: options.maximumWriteAttempts)
    }

    /// Logs and publishes a compaction once the writer lock is released.
    func published(_ outcome: Compaction) {
        options.logger.debug("compacted '\(outcome.fork)' at \(outcome.horizon.short): checkpoint \(outcome.checkpoint.short), \(outcome.replayed) commits replayed")
        publish(StoreChange(fork: outcome.fork, commit: outcome.newHead, mergedFrom: nil, kind: .compacted))
        for fork in outcome.movedForks {
            if let head = try? head(of: fork) { publish(StoreChange(fork: fork, commit: head.id, mergedFrom: nil, kind: .compacted)) }
        }
    }

    /// Throws unless this replica may compact: in a shared store (its head holds participants)
    /// only an owner does, and signs the checkpoint and the replayed commits.
    func requireOwnerToCompact(_ fork: Fork, in session: StoreSession) throws {
        let head = try session.readableHead(of: fork)
        guard let shared = try participants(inTree: head.tree, of: head, session: session)?.inForce else { return }
        guard let key = options.signingKey?.publicKey else {
            throw StoreError.compactionRefused(fork: fork.name, reason: "the store is shared, and only an owner compacts it: open it with an owner's signing key")
        }
        guard shared.participant(with: key)?.access == .owner else {
            throw StoreError.compactionRefused(fork: fork.name, reason: "the store is shared, and \(key) is not an owner of it")
        }
    }

    /// Writes the new lineage of `fork` rooted in the checkpoint of `horizon` and the archive
    /// ref, and reads them back; moves no fork. Runs under the writer lock.
    func compaction(of fork: Fork, at horizon: CommitID, in session: StoreSession) throws -> Compaction? {
        let head = try session.readableHead(of: fork)
        var chain: [Commit] = []  // newest first: the commits after C
        var current = head
        while current.id != horizon {
            try StoreThread.checkCancellation()
            guard let parent = current.parents.first else {
                throw StoreError.compactionRefused(fork: fork.name, reason: "commit \(horizon.short) is not on the fork's first-parent history")
            }
            chain.append(current)
            current = try session.commit(parent.objectID)
        }
        let horizonCommit = current
        guard !horizonCommit.parents.isEmpty else { return nil }
        try session.checkStamps(of: horizonCommit)

        let checkpoint = try writeCheckpoint(of: horizonCommit, in: session)
        var copies = [horizon: CommitID(checkpoint)]
        var parent = checkpoint
        for commit in chain.reversed() {
            try StoreThread.checkCancellation()
            parent = try writeCopy(of: commit, onto: parent, in: session)
            copies[commit.id] = CommitID(parent)
        }
        // Read back before any ref moves: the new head holds the old head's tree, and its
        // first-parent history reaches K after exactly the replayed commits.
        let newHead = try session.commit(parent)
        try verifyLineage(newHead, replacing: head, checkpoint: checkpoint, length: chain.count, in: session)
        try keepArchive(of: CommitID(checkpoint), at: head.id, in: session)
        return Compaction(
            fork: fork, horizon: horizon, checkpoint: CommitID(checkpoint), oldHead: head.id, newHead: newHead.id, replayed: chain.count,
            copies: copies)
    }

    /// Writes the checkpoint of `horizon` (signed when the store signs its commits) and reads it back.
    func writeCheckpoint(of horizon: Commit, in session: StoreSession) throws -> ObjectID {
        let counted = horizon.trailers.values(forKey: TrailerKey.recordCount).isEmpty
            ? try layout.trailers(forTree: horizon.tree, after: nil, in: session) : []
        let root = try session.lineageRoot(of: horizon.id.objectID)
        let after = root.isCheckpoint ? root.id : nil
        let message = Checkpoint.message(of: horizon, countedRecords: counted, after: after)
        guard let content = Checkpoint.content(of: horizon, horizonContent: try rawContent(of: horizon.id, in: session), message: message) else {
            throw StoreError.malformedCommit(commit: horizon.id, reason: "its header has no committer")
        }
        let id = try writeCommit(content, in: session)
        let written = try session.commit(id)
        guard written.checkpointOf == horizon.id, written.checkpointAfter == after, written.problem == nil,
              Checkpoint.problem(of: written, horizonTree: horizon.tree) == nil
        else {
            throw StoreError.repository(operation: "writing a checkpoint", reason: "the checkpoint \(written.id.short) did not read back as one")
        }
        return id
    }

    /// Writes `commit` again with `parent` as its only parent: same tree, author, committer
    /// and message; signed afresh when the store signs its commits.
    func writeCopy(of commit: Commit, onto parent: ObjectID, in session: StoreSession) throws -> ObjectID {
        try writeCommit(rawContent(of: commit.id, in: session).copied(onto: [parent]), in: session)
    }

    private func rawContent(of id: CommitID, in session: StoreSession) throws -> CommitContent {
        let bytes = try git("reading commit \(id.short)", object: id.hex) { () throws(GitError) in
            try session.repository.rawCommit(id.objectID)
        }
        guard let content = CommitContent(bytes) else {
            throw StoreError.malformedCommit(commit: id, reason: "its header has no end")
        }
        return content
    }

    private func writeCommit(_ content: CommitContent, in session: StoreSession) throws -> ObjectID {
        let bytes = content.bytes
        let armored: String?
        if let signer = options.commitSigner {
            do { armored = try signer(bytes) } catch {
                throw StoreError.repository(operation: "signing a commit", reason: "\(error)")
            }
        } else {
            armored = nil
        }
        return try git("writing a commit") { () throws(GitError) in
            try session.repository.writeCommit(content: bytes, armoredSignature: armored)
        }
    }

    private func verifyLineage(_ newHead: Commit, replacing oldHead: Commit, checkpoint: ObjectID, length: Int, in session: StoreSession) throws {
        func broken(_ why: String) -> StoreError {
            StoreError.repository(operation: "compacting history", reason: "the new lineage did not read back: \(why)")
        }
        guard newHead.tree == oldHead.tree else { throw broken("its head's tree differs from the old head's") }
        // With nothing replayed the new head is K itself, whose trailers add Checkpoint-Of
        // (checked by writeCheckpoint); a replayed head is the old head's copy, trailers and all.
        guard length == 0 || newHead.trailers == oldHead.trailers else { throw broken("its head's trailers differ from the old head's") }
        var current = newHead
        for _ in 0..<length {
            guard current.parents.count == 1 else { throw broken("commit \(current.id.short) has \(current.parents.count) parents") }
            current = try session.commit(current.parents[0].objectID)
        }
        guard current.id.objectID == checkpoint else { throw broken("it does not reach the checkpoint") }
    }

    /// Points the archive ref of `checkpoint` at `oldHead`. An archive ref already there (a
    /// compaction at the same horizon killed before it moved the fork, or another fork
    /// compacted at it) is moved only forward: to a head that contains it.
    private func keepArchive(of checkpoint: CommitID, at oldHead: CommitID, in session: StoreSession) throws {
        let name = Checkpoint.archiveReference(of: checkpoint)
        let repository = session.repository
        let existing = try git("reading the archive of \(checkpoint.short)") { () throws(GitError) in try repository.resolveReference(name) }
        if let existing, existing != oldHead.objectID {
            let bases = try git("comparing archives") { () throws(GitError) in try repository.mergeBases(existing, oldHead.objectID) }
            if bases.contains(oldHead.objectID) { return }
            guard bases.contains(existing) else {
                throw StoreError.compactionRefused(
                    fork: nil, reason: "the archive ref \(name) keeps a history that is neither before nor after this one")
            }
        }
        if existing != oldHead.objectID {
            try git("keeping the archive of \(checkpoint.short)") { () throws(GitError) in
                try repository.updateReference(name, to: oldHead.objectID, expecting: existing, logMessage: "forkstore: archive")
            }
        }
        let kept = try git("reading the archive of \(checkpoint.short)") { () throws(GitError) in try repository.resolveReference(name) }
        guard kept == oldHead.objectID else {
            throw StoreError.repository(operation: "keeping the archive", reason: "the archive ref \(name) did not read back")
        }
    }
}

extension StoreEngine {
    /// Moves the forks other than `main` and `cloud` onto main's new history: a fork whose
    /// first-parent history meets main's at or after the horizon has its own commits replayed
    /// (same trees and messages) onto the copy of the commit where they meet; one that meets
    /// it only before the horizon stays on the old history, which its ref keeps. Each moves by
    /// compare-and-swap; a fork moved meanwhile is left as it is. Returns the forks moved.
    func moveForks(after compaction: Compaction, in session: StoreSession) throws -> [Fork] {
        let horizon = try session.commit(compaction.horizon.objectID)
        let references = try git("listing forks") { () throws(GitError) in try session.repository.references(withPrefix: Fork.referencePrefix) }
        var moved: [Fork] = []
        for reference in references {
            let fork = Fork(unchecked: String(reference.name.dropFirst(Fork.referencePrefix.count)))
            guard fork != .main, fork != .cloud else { continue }
            var own: [Commit] = []  // newest first: the fork's commits after where it meets main
            var current = try session.commit(reference.target)
            var meeting: CommitID?
            while true {
                if let copy = compaction.copies[current.id] { meeting = copy; break }
                // Lamport counters grow from parent to child: below the horizon's, no commit
                // descends from it.
                guard current.lamport > horizon.lamport, let parent = current.parents.first else { break }
                own.append(current)
                current = try session.commit(parent.objectID)
            }
            guard let meeting else { continue }
            var parent = meeting.objectID
            for commit in own.reversed() { parent = try writeCopy(of: commit, onto: parent, in: session) }
            let newHead = try session.commit(parent)
            guard newHead.tree == (try session.commit(reference.target)).tree else { continue }
            if try moveReference(of: fork, to: parent, expecting: reference.target, in: session) { moved.append(fork) }
        }
        return moved
    }

    /// Compacts `main` as `policy` asks: the commit the policy puts at the horizon becomes the
    /// checkpoint. With nil, as the store's ``StoreOptions/history`` asks, once compaction is
    /// due (``HistoryPolicy/isDue(root:length:now:)``); an explicit policy compacts at once.
    /// With ``ArchivePolicy/drop``, the archive refs are then removed. Nil when the history is
    /// within the policy.
    func compactHistory(_ policy: HistoryPolicy? = nil) throws -> Compaction? {
        let outcome = try compact(under: policy ?? options.history, onlyWhenDue: policy == nil)
        if (policy ?? options.history).archive == .drop { _ = try dropArchives() }
        return outcome
    }

    /// Compacts `main` at the horizon `policy` sets, once due when `onlyWhenDue`; drops nothing.
    private func compact(under policy: HistoryPolicy, onlyWhenDue: Bool) throws -> Compaction? {
        guard !policy.keepsEverything else { return nil }
        let now = options.wallClock()
        let outcome = try write { session -> Compaction? in
            guard let horizon = try horizon(of: .main, under: policy, now: now, onlyWhenDue: onlyWhenDue, in: session) else { return nil }
            return try compactLocked(.main, at: horizon, in: session)
        }
        if let outcome { published(outcome) }
        return outcome
    }

    /// The commit `policy` puts at the horizon of `fork`; nil when its history is within it,
    /// or, `onlyWhenDue`, when it has not yet grown to where the policy compacts again.
    func horizon(of fork: Fork, under policy: HistoryPolicy, now: Date, onlyWhenDue: Bool, in session: StoreSession) throws -> CommitID? {
        var current = try session.head(of: fork)
        var steps = 0
        var horizon: Commit?
        while true {
            if horizon == nil, policy.isHorizon(current, stepsBelowHead: steps, now: now) {
                if current.parents.isEmpty { return nil }
                horizon = current
                if !onlyWhenDue { break }
            }
            guard let parent = current.parents.first else { break }
            try StoreThread.checkCancellation()
            current = try session.commit(parent.objectID)
            steps += 1
            // Far enough down to know compaction is due: no need to walk to the root.
            if horizon != nil, policy.isDue(root: nil, length: steps + 1, now: now) { break }
        }
        guard let horizon else { return nil }
        if onlyWhenDue, !policy.isDue(root: current, length: steps + 1, now: now) { return nil }
        return horizon.id
    }

    /// Removes the archive refs the remote no longer needs (``droppableArchives(in:)``), so
    /// that the next pack frees the old history. Returns how many were removed.
    func dropArchives() throws -> Int {
        try write { session in
            let repository = session.repository
            let archives = try droppableArchives(in: session)
            guard !archives.isEmpty else { return 0 }
            // Noted before any ref goes, so a pack after a crash still frees what they kept.
            let marker = repository.gitDirectory + Self.pruneMarker
            guard FileManager.default.createFile(atPath: marker, contents: Data()) else {
                throw StoreError.fileSystem(path: marker, reason: "it could not be created")
            }
            for archive in archives {
                try git("dropping the archive \(archive.name)") { () throws(GitError) in
                    try repository.deleteReference(archive.name, expecting: archive.target)
                }
            }
            return archives.count
        }
    }

    /// The archive refs a policy may drop: all of them with no `cloud` (the store never
    /// synced); otherwise only once the remote holds what replaces them, so a replica still on
    /// the old history can fetch them from it first. An archive of K goes once `cloud`'s
    /// lineage is rooted in K or in a checkpoint that wins over K: the exchange pushes a
    /// lineage's archive before the lineage. A carried head goes once `cloud`'s lineage is
    /// `main`'s.
    private func droppableArchives(in session: StoreSession) throws -> [(name: String, target: ObjectID)] {
        let archives = try git("listing archives") { () throws(GitError) in
            try session.repository.references(withPrefix: Checkpoint.archivePrefix)
        }
        guard !archives.isEmpty, let cloud = try session.headID(of: .cloud) else { return archives }
        let cloudRoot = try session.lineageRoot(of: cloud)
        let mainRoot = try session.lineageRoot(of: session.head(of: .main).id.objectID)
        return archives.filter { archive in
            guard let checkpoint = Checkpoint.checkpoint(ofArchive: archive.name) else { return cloudRoot.id == mainRoot.id }
            if cloudRoot.id == checkpoint { return true }
            guard let replaced = try? session.commit(checkpoint.objectID) else { return cloudRoot.isCheckpoint }
            return cloudRoot.winsAdoption(over: replaced)
        }
    }

    /// The file whose presence tells ``pack()`` that dropped archives left objects to free.
    static let pruneMarker = "forkstore-prune-due"

    /// What ``pack()`` does first under a history policy: compacts `main` (a shared store's
    /// non-owner leaves that to an owner; a store whose remote refused a replacement does not
    /// compact, since its next sync would carry `main` back), drops the archives if the policy
    /// says so. Returns
    /// whether objects were left unreachable, so the pack should free them.
    func compactBeforePacking() throws -> Bool {
        let policy = options.history
        if !policy.keepsEverything, try refusedReplacements().isEmpty {
            do {
                _ = try compact(under: policy, onlyWhenDue: true)
            } catch let error as StoreError where error.code == .compactionRefused {
                options.logger.debug("pack did not compact: \(error.message)")
            }
            if policy.archive == .drop { _ = try dropArchives() }
        }
        let gitDirectory = try read { session in session.repository.gitDirectory }
        return FileManager.default.fileExists(atPath: gitDirectory + Self.pruneMarker)
    }

    /// Frees what no reference reaches (``Repository/repackReachable()``), under the sync,
    /// writer and packing locks, then clears the note ``dropArchives()`` left. A sync running
    /// now may have moved fetched packs into the store before the ref that reaches them: the
    /// freeing then waits for the next pack rather than for the sync. Returns whether it ran.
    @discardableResult
    func freeUnreachableObjects() throws -> Bool {
        let freed: Void? = try withSyncLock(waitingAtMost: .zero) {
            try write { session in
                try packingLock.withLock {
                    let pruning = try git("freeing the old history") { () throws(GitError) in try session.repository.repackReachable(gracePeriod: options.pruneGracePeriod) }
                    if let skipped = pruning.skipped { options.logger.notice("the old history was not freed: \(skipped)") }
                    options.logger.debug("kept \(pruning.kept) reachable objects; removed \(pruning.removedPacks) packs and \(pruning.removedLoose) loose objects")
                    // Young files may still hold old history: the next pack looks again.
                    if pruning.young == 0 { try? FileManager.default.removeItem(atPath: session.repository.gitDirectory + Self.pruneMarker) }
                }
            }
        }
        if freed == nil { options.logger.debug("a sync is running: the old history is freed by the next pack") }
        return freed != nil
    }

    /// The checkpoint at the root of a fork's history, if its history was compacted.
    func checkpoint(of fork: Fork) throws -> Commit? {
        try read { session in
            let root = try session.lineageRoot(of: session.head(of: fork).id.objectID)
            return root.checkpointOf == nil ? nil : root
        }
    }
}
