import ForkStoreGit

extension Store {
    /// A fork's commits, newest first (topological order), at most `limit` of them.
    public func history(of fork: Fork = .main, limit: Int? = nil) throws -> [Commit] {
        try repository.withRepository { repository in
            let head = try Self.head(of: fork, in: repository)
            let ids = try git("walking the history of '\(fork)'", object: "in the history of '\(fork)'") {
                () throws(GitError) in try repository.walk(from: head.id.objectID, limit: limit)
            }
            return try ids.map { id in try Self.commit(id, in: repository) }
        }
    }

    /// One commit, by id.
    public func commit(_ id: CommitID) throws -> Commit {
        try repository.withRepository { repository in try Self.existingCommit(id, in: repository) }
    }

    /// Finds a commit by its full id or a unique prefix of at least 4 hexadecimal digits.
    public func commit(matching text: String) throws -> Commit {
        try repository.withRepository { repository in
            guard let id = try? repository.commit(withPrefix: text) else {
                throw StoreError.commitNotFound(text)
            }
            return try Self.commit(id, in: repository)
        }
    }

    /// What changed in the value between two commits.
    public func differences(from old: CommitID, to new: CommitID) throws -> [ValueDifference] {
        try repository.withRepository { repository in
            let before = try Self.snapshot(of: Self.existingCommit(old, in: repository), in: repository).value
            let after = try Self.snapshot(of: Self.existingCommit(new, in: repository), in: repository).value
            return ValueDifference.between(try Self.json(before), try Self.json(after))
        }
    }

    /// Writes the value held by an earlier commit as a new commit on `fork`. History is kept:
    /// nothing is rewritten. Returns the fork's head (unchanged if the value already matches).
    @discardableResult
    public func restore(_ commit: CommitID, in fork: Fork = .main) throws -> Commit {
        let old = try value(at: commit)
        return try write(fork, message: "Restore value from \(commit.short)") { _ in old }
    }

    private static func json(_ value: Value?) throws(StoreError) -> JSONValue? {
        guard let value else { return nil }
        do {
            return try CanonicalJSON.parse(try ValueCodec.encode(value))
        } catch let error as CanonicalJSONError {
            throw StoreError.encodingFailed(reason: error.description)
        } catch {
            throw error as? StoreError ?? .encodingFailed(reason: String(describing: error))
        }
    }

    /// A stream of every change this store object makes: commits, merges, fast-forwards,
    /// created and deleted forks. Each call returns a new stream; it ends when the store is
    /// released. Changes made by other processes are not seen here.
    public func changes() -> AsyncStream<StoreChange> {
        changeHub.subscribe()
    }
}
