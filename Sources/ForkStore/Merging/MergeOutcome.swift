/// What a merge did.
public enum MergeOutcome: Sendable, Equatable {
    /// The target already contained everything from the source; nothing was written.
    case upToDate
    /// The target had no changes of its own and moved forward to the source's head.
    case fastForwarded(to: CommitID)
    /// A merge commit with two parents was written; `conflicts` lists every place where the
    /// merge had to choose, with what it chose.
    case merged(Commit, conflicts: [MergeConflict])
}

/// How a merge commit's value was decided; recorded in its `Merge-Strategy` trailer.
public enum MergeDecision: String, Sendable, Equatable {
    /// Both sides hold the same value.
    case identical
    /// Only one side changed since the common ancestor; its value was taken.
    case oneSided = "one-sided"
    /// The value's own ``Mergeable`` three-way merge ran.
    case mergeable
    /// A record collection was merged record by record against a common ancestor (each
    /// record by the rules of ``RecordStore``'s merge; conflicts are reported per record).
    case recordByRecord = "record-by-record"
    /// The value is not ``Mergeable``: the dominant side's value was kept whole.
    case lastWriterWins = "last-writer-wins"
    /// The histories are unrelated (or both sides added a value independently): the
    /// two-way ``Mergeable/salvaged(with:)`` ran.
    case salvage
    /// One side removed the value and the other edited it: the edit was kept, because it was
    /// the later write or because the store's ``RemovalPolicy`` is ``RemovalPolicy/editWins``.
    case editWinsOverRemoval = "edit-wins-over-removal"
    /// One side removed the value and the other edited it earlier: the later removal won
    /// (``RemovalPolicy/latestWins``). The edit stays in the history.
    case removalWins = "removal-wins"
}
