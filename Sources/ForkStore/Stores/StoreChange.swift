/// One change to a store, as published on ``VersionedStore/changes()``.
public struct StoreChange: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A new commit on the fork: an update, a removal or a restore.
        case committed
        /// A merge commit on the fork, merging ``StoreChange/mergedFrom``.
        case merged
        /// The fork moved forward to ``StoreChange/mergedFrom``'s head without a merge commit.
        case fastForwarded
        /// The fork was created.
        case forkCreated
        /// The fork was deleted; ``StoreChange/commit`` is its last head.
        case forkDeleted
        /// `cloud` moved to what the remote holds, after a fetch or a push. Only an exchange
        /// writes `cloud`.
        case synced
        /// The fork's history before a horizon was replaced by a checkpoint: its head is a
        /// new commit with the same data, on a lineage rooted in the checkpoint (see
        /// <doc:HistoryHorizon>).
        case compacted
    }

    /// The fork that changed.
    public let fork: Fork
    /// The fork's head after the change (for a deletion, its last head).
    public let commit: CommitID
    /// For merges and fast-forwards, the fork merged from.
    public let mergedFrom: Fork?
    /// What happened.
    public let kind: Kind

    /// Makes a change record; the store makes these, tests may too.
    public init(fork: Fork, commit: CommitID, mergedFrom: Fork? = nil, kind: Kind) {
        self.fork = fork
        self.commit = commit
        self.mergedFrom = mergedFrom
        self.kind = kind
    }
}
