import ForkStoreGit

/// What compacting a fork did (Schema/FORMAT.md §16).
package struct Compaction: Sendable, Hashable {
    /// The fork compacted.
    package let fork: Fork
    /// The horizon C: the commit the checkpoint stands in for.
    package let horizon: CommitID
    /// The checkpoint K, the root of the fork's new lineage.
    package let checkpoint: CommitID
    /// The fork's head before: what the archive ref keeps.
    package let oldHead: CommitID
    /// The fork's head after: the old head replayed onto K, with the same tree.
    package let newHead: CommitID
    /// How many commits after C were replayed onto K.
    package let replayed: Int
    /// The archive ref naming the old head.
    package var archiveReference: String { Checkpoint.archiveReference(of: checkpoint) }
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
        let outcome = try write { session throws -> Compaction? in
            for _ in 1...options.maximumWriteAttempts {
                guard let planned = try compaction(of: fork, at: horizon, in: session) else { return nil }
                guard try moveReference(of: fork, to: planned.newHead.objectID, expecting: planned.oldHead.objectID, in: session) else {
                    continue
                }
                return planned
            }
            throw StoreError.concurrentUpdate(fork: fork.name, attempts: options.maximumWriteAttempts)
        }
        if let outcome {
            options.logger.debug("compacted '\(fork)' at \(outcome.horizon.short): checkpoint \(outcome.checkpoint.short), \(outcome.replayed) commits replayed")
            publish(StoreChange(fork: fork, commit: outcome.newHead, mergedFrom: nil, kind: .compacted))
        }
        return outcome
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
        var parent = checkpoint
        for commit in chain.reversed() {
            try StoreThread.checkCancellation()
            parent = try writeCopy(of: commit, onto: parent, in: session)
        }
        // Read back before any ref moves: the new head holds the old head's tree, and its
        // first-parent history reaches K after exactly the replayed commits.
        let newHead = try session.commit(parent)
        try verifyLineage(newHead, replacing: head, checkpoint: checkpoint, length: chain.count, in: session)
        try keepArchive(of: CommitID(checkpoint), at: head.id, in: session)
        return Compaction(
            fork: fork, horizon: horizon, checkpoint: CommitID(checkpoint), oldHead: head.id, newHead: newHead.id, replayed: chain.count)
    }

    /// Writes the checkpoint of `horizon` (signed when the store signs its commits) and reads it back.
    func writeCheckpoint(of horizon: Commit, in session: StoreSession) throws -> ObjectID {
        let counted = horizon.trailers.values(forKey: TrailerKey.recordCount).isEmpty
            ? try layout.trailers(forTree: horizon.tree, after: nil, in: session) : []
        let message = Checkpoint.message(of: horizon, countedRecords: counted)
        guard let content = Checkpoint.content(of: horizon, horizonContent: try rawContent(of: horizon.id, in: session), message: message) else {
            throw StoreError.malformedCommit(commit: horizon.id, reason: "its header has no committer")
        }
        let id = try writeCommit(content, in: session)
        let written = try session.commit(id)
        guard written.checkpointOf == horizon.id, written.problem == nil,
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
        guard newHead.tree == oldHead.tree, newHead.trailers == oldHead.trailers else { throw broken("its head differs from the old head") }
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
