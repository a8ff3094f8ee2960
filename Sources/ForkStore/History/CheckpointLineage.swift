import ForkStoreGit

/// The trailer of carried commits (FORMAT.md §16).
extension TrailerKey {
    static let carriedFrom = "Carried-From"
}

extension Commit {
    /// Whether the commit is a checkpoint: a root commit naming the commit whose tree it holds.
    var isCheckpoint: Bool { parents.isEmpty && checkpointOf != nil }

    /// The commit whose changes this one carried onto a checkpoint lineage (`Carried-From`).
    var carriedFrom: CommitID? {
        let values = trailers.values(forKey: TrailerKey.carriedFrom)
        guard values.count == 1, let value = values.first, Checkpoint.isFullLowercaseHex(value) else { return nil }
        return CommitID(value)
    }


    /// Whether this checkpoint's lineage wins over `other`'s (FORMAT.md §16, adoption): the
    /// newer checkpoint by its `Lamport` (its commit C's), then its `Clock`, then the higher
    /// commit id; any checkpoint wins over a root that is none (the old history). Depends only
    /// on the two roots, so every replica picks the same lineage.
    ///
    /// `Lamport` comes first because it grows from parent to child without bound, where a
    /// clock follows a far-future parent only within the maximum skew: a checkpoint cut later
    /// on the same history always wins over one cut earlier.
    func winsAdoption(over other: Commit) -> Bool {
        switch (isCheckpoint, other.isCheckpoint) {
        case (true, false): return true
        case (false, true), (false, false): return false
        case (true, true):
            if lamport != other.lamport { return lamport > other.lamport }
            if clock != other.clock { return clock > other.clock }
            return other.id < id
        }
    }
}

extension StoreSession {
    /// The root of `head`'s first-parent chain: a checkpoint, or the store's first commit.
    /// Walks the whole lineage (``Repository/firstParentRoot(of:)``), reading only each
    /// commit's parents: a compaction and an adoption call it, not every write.
    func lineageRoot(of head: ObjectID) throws(StoreError) -> Commit {
        let root = try git("finding the root of the history of \(head.hex.prefix(10))") { () throws(GitError) in
            try repository.firstParentRoot(of: head)
        }
        return try commit(root)
    }

    /// The archive (old head) this store keeps for `checkpoint`; nil when it keeps none.
    func archiveHead(of checkpoint: CommitID) throws(StoreError) -> Commit? {
        let name = Checkpoint.archiveReference(of: checkpoint)
        guard let id = try git("reading \(name)", { () throws(GitError) in try repository.resolveReference(name) }) else { return nil }
        return try? commit(id)
    }

    /// Whether `one` and `two` share no history (no merge base).
    func areUnrelated(_ one: ObjectID, _ two: ObjectID) throws(StoreError) -> Bool {
        if one == two { return false }
        return try git("comparing histories") { () throws(GitError) in try repository.mergeBases(one, two).isEmpty }
    }
}
