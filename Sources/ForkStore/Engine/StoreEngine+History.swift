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
    /// stopping at the first that fails. A compacted history is replayed from its checkpoint,
    /// and the archived history before it too while an archive ref keeps it (reported as
    /// `main`'s, whose history it was).
    func replayHistory() throws -> ReplayReport {
        var report = ReplayReport()
        var seen = Set<CommitID>()
        let archives = try read { session in
            try git("listing archives") { () throws(GitError) in try session.repository.references(withPrefix: Checkpoint.archivePrefix) }
        }
        let histories = try forks().map { ($0, try history(of: $0, limit: nil)) }
            + archives.map { archive in (Fork.main, try read { session in
                try session.walk(from: archive.target).map { id in try session.commit(id) }
            }) }
        for (fork, commits) in histories {
            for commit in commits.reversed() where seen.insert(commit.id).inserted {
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
