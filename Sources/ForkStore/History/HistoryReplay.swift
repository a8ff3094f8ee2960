import ForkStoreGit

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

/// What ``Store/replayHistory()`` or ``RecordStore/replayHistory()`` checked.
public struct ReplayReport: Sendable, Equatable {
    /// Distinct commits decoded, over all forks.
    public var commits = 0
    /// Values or records decoded.
    public var values = 0
    /// The first commit (oldest first, fork by fork) that failed; nil when all decode.
    public var firstFailure: ReplayFailure?
}

extension Store {
    /// Decodes every commit of every fork, oldest first, with the current model and its
    /// migrations, stopping at the first that fails. Use it to prove a migration before
    /// shipping it; the `ForkStoreMigrationTesting` kit wraps it for test suites.
    public func replayHistory() throws -> ReplayReport {
        try replay { commit, repository in
            _ = try Self.snapshot(of: commit, in: repository)
            return 1
        }
    }

    /// Walks every commit once, oldest first per fork, calling `check`; returns at the first
    /// failure.
    func replay(_ check: (Commit, Repository) throws -> Int) throws -> ReplayReport {
        var report = ReplayReport()
        var seen = Set<CommitID>()
        for fork in try forks() {
            let history = try history(of: fork).reversed()
            for commit in history where seen.insert(commit.id).inserted {
                do {
                    report.values += try repository.withRepository { try check(commit, $0) }
                    report.commits += 1
                } catch let error as StoreError {
                    report.firstFailure = ReplayFailure(fork: fork, commit: commit.id, subject: commit.subject, error: error)
                    return report
                }
            }
        }
        return report
    }
}

extension RecordStore {
    /// Decodes, with the current model and its migrations, every record each commit of every
    /// fork added or changed (unchanged records were checked where they were written), oldest
    /// first, stopping at the first commit that fails.
    public func replayHistory() throws -> ReplayReport {
        try engine.replay { commit, repository in
            try Store<Record>.checkStamps(of: commit)
            let parent = try commit.parents.first.map { try Store<Record>.commit($0.objectIDForExchange, in: repository).tree }
            let changed = try git("diffing \(commit.id.short)") { () throws(GitError) in
                try repository.differences(from: parent, to: commit.tree)
            }
            var decoded = 0
            for difference in changed {
                guard let blob = difference.new else { continue }
                _ = try Self.decode(blob, path: difference.path, commit: commit, expecting: nil, in: repository)
                decoded += 1
            }
            return decoded
        }
    }
}
