/// The first commit of a history that the current model cannot read.
public struct ReplayFailure: Sendable, Equatable, CustomStringConvertible {
    /// A fork whose history contains the commit.
    public let fork: Fork
    /// The commit.
    public let commit: CommitID
    /// Its subject line.
    public let subject: String
    /// Why it failed (a decoding, migration or stamp error).
    public let error: StoreError

    public var description: String {
        "commit \(commit.short) (\"\(subject)\") on fork '\(fork)': \(error)"
    }
}

/// What ``VersionedStore/replayHistory()-8psx9`` checked.
public struct ReplayReport: Sendable, Equatable {
    /// Distinct commits decoded, over all forks.
    public var commits = 0
    /// Values or records decoded.
    public var values = 0
    /// The first commit (oldest first, fork by fork) that failed; nil when all decode.
    public var firstFailure: ReplayFailure?
}
