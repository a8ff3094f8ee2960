import ForkStoreGit

/// Adoption (FORMAT.md §16): when `main` and the remote's `main` (in `cloud`) are two lineages
/// with no common history and at least one is rooted in a checkpoint, `main` moves to the
/// winning lineage, with the losing head's changes carried over onto it.
extension StoreEngine {
    /// What merging `cloud` into `main` does when the two share no history and one of them is
    /// rooted in a checkpoint: `main` moves to the lineage the adoption rule picks, with the
    /// other head's changes carried over onto it (``carryOver(_:onto:resolver:in:)``). When
    /// `main`'s own lineage wins, it stays and `cloud`'s changes are carried onto it: the next
    /// push replaces the remote's `main` under a lease
    /// (``pushMain(_:to:localPath:replacing:options:)``). Nil when neither is rooted in a
    /// checkpoint: the two-way salvage of unrelated histories applies.
    func adoption(of cloud: Commit, by main: Commit, resolver: ConflictResolver?, in session: StoreSession) throws -> (advance: Advance, carried: CarryOver?)? {
        let mainRoot = try session.lineageRoot(of: main.id.objectID), cloudRoot = try session.lineageRoot(of: cloud.id.objectID)
        guard mainRoot.isCheckpoint || cloudRoot.isCheckpoint else { return nil }
        let cloudWins = cloudRoot.winsAdoption(over: mainRoot)
        let (winning, losing) = cloudWins ? (cloud, main) : (main, cloud)
        let carry = try carryOver(losing, onto: winning, resolver: resolver, in: session)
        guard let commit = carry.commit else {
            return (cloudWins ? .move(to: cloud.id.objectID, as: .fastForwarded) : .nothing, nil)
        }
        return (.commit(tree: commit.tree, parents: [winning.id.objectID], message: commit.message), carry)
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
