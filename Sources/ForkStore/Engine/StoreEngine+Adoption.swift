import ForkStoreGit

/// Adoption (FORMAT.md §16): when two forks merged into one another have no common history
/// and at least one is rooted in a checkpoint, the fork merged into moves to the winning
/// lineage, with the losing head's changes carried over onto it.
extension StoreEngine {
    /// What merging `source` into `target` does when the two share no history and one of them
    /// is rooted in a checkpoint: `target` moves to the lineage the adoption rule picks, with
    /// the other head's changes carried over onto it (``carryOver(_:onto:resolver:in:)``).
    /// When `target`'s own lineage wins, it stays and `source`'s changes are carried onto it;
    /// for `cloud` into `main`, the next push then replaces the remote's `main` under a lease
    /// (``pushMain(_:to:localPath:replacing:options:)``). Nil when neither is rooted in a
    /// checkpoint: the two-way salvage of unrelated histories applies.
    func adoption(of source: Commit, by target: Commit, resolver: ConflictResolver?, in session: StoreSession) throws -> (advance: Advance, carried: CarryOver?)? {
        let targetRoot = try session.lineageRoot(of: target.id.objectID), sourceRoot = try session.lineageRoot(of: source.id.objectID)
        guard targetRoot.isCheckpoint || sourceRoot.isCheckpoint else { return nil }
        let sourceWins = sourceRoot.winsAdoption(over: targetRoot)
        let (winning, losing) = sourceWins ? (source, target) : (target, source)
        let carry = try carryOver(losing, onto: winning, resolver: resolver, in: session)
        try keepLosingHead(losing, in: session)
        guard let commit = carry.commit else {
            return (sourceWins ? .move(to: source.id.objectID, as: .fastForwarded) : .nothing, nil)
        }
        return (.commit(tree: commit.tree, parents: [winning.id.objectID], message: commit.message), carry)
    }

    /// Keeps the losing head of an adoption under its carried ref, before the fork moves off
    /// it: its changes were carried, and its history stays archived until the policy drops
    /// the archives, as a compaction keeps the history it replaced.
    private func keepLosingHead(_ losing: Commit, in session: StoreSession) throws {
        let name = Checkpoint.carriedReference(of: losing.id), repository = session.repository
        let kept = try git("keeping \(name)") { () throws(GitError) in
            if try repository.resolveReference(name) == nil {
                try repository.updateReference(name, to: losing.id.objectID, expecting: nil, logMessage: "forkstore: carried")
            }
            return try repository.resolveReference(name)
        }
        guard kept == losing.id.objectID else {
            throw StoreError.repository(operation: "keeping the losing head", reason: "the ref \(name) did not read back")
        }
    }

    /// The checkpoint `main`'s lineage is rooted in, when the remote's `main` (`remoteHead`,
    /// the head `cloud` last saw) is not in `main`'s history: the lineage a push replaces the
    /// remote's with. Nil when the push is an ordinary fast-forward.
    package func replacedLineage(pushing head: CommitID, over remoteHead: CommitID?) throws -> (checkpoint: CommitID, archive: CommitID?)? {
        guard let remoteHead else { return nil }
        return try read { session in
            let descends = try git("comparing main with cloud") { () throws(GitError) in
                try session.repository.isDescendant(head.objectID, of: remoteHead.objectID)
            }
            guard !descends, try session.areUnrelated(head.objectID, remoteHead.objectID) else { return nil }
            let root = try session.lineageRoot(of: head.objectID)
            guard root.isCheckpoint else { return nil }
            return (root.id, try session.archiveHead(of: root.id)?.id)
        }
    }
}
