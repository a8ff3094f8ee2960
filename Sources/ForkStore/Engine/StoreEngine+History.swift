import ForkStoreGit

extension StoreEngine {
    /// The newest commit of a fork.
    func head(of fork: Fork) throws -> Commit {
        try read { session in try session.head(of: fork) }
    }

    /// A fork's commits, newest first, at most `limit` of them.
    func history(of fork: Fork, limit: Int?) throws -> [Commit] {
        try read { session in
            let head = try session.head(of: fork)
            return try session.walk(from: head.id.objectID, limit: limit).map { id in
                try StoreThread.checkCancellation()
                return try session.commit(id)
            }
        }
    }

    /// One commit, by id.
    func commit(_ id: CommitID) throws -> Commit {
        try read { session in try session.existingCommit(id) }
    }

    /// A commit by its full id or a unique prefix of at least 4 hexadecimal digits.
    func commit(matching text: String) throws -> Commit {
        try read { session in
            guard let id = try? session.repository.commit(withPrefix: text) else {
                throw StoreError.commitNotFound(text)
            }
            return try session.commit(id)
        }
    }

    /// Decodes every commit of every fork, oldest first per fork, with the layout's replay,
    /// stopping at the first that fails.
    func replayHistory() throws -> ReplayReport {
        var report = ReplayReport()
        var seen = Set<CommitID>()
        for fork in try forks() {
            for commit in try history(of: fork, limit: nil).reversed() where seen.insert(commit.id).inserted {
                try StoreThread.checkCancellation()
                do {
                    report.values += try read { session in
                        try session.checkStamps(of: commit)
                        return try layout.replay(commit, in: session)
                    }
                    report.commits += 1
                } catch let error as StoreError {
                    report.firstFailure = ReplayFailure(fork: fork, commit: commit.id, subject: commit.subject, error: error)
                    return report
                }
            }
        }
        return report
    }

    /// A stream of every change this engine makes.
    func changes() -> AsyncStream<StoreChange> {
        changeHub.subscribe()
    }
}
