/// The `async` variants, for app code on the main actor or any other: each runs the same work
/// as its synchronous twin on one of ForkStore's own threads, so the caller's actor is free
/// while the disk is busy (as GRDB's `async` `read` and `write` do).
extension Store {
    /// The value on a fork's head; nil when the fork holds no value.
    public func value(in fork: Fork = .main) async throws -> Value? {
        try await engine.perform { try self.value(in: fork) }
    }

    /// The value a commit holds; nil when it holds no value.
    public func value(at commit: CommitID) async throws -> Value? {
        try await engine.perform { try self.value(at: commit) }
    }

    /// Saves `value` as the fork's new value in one commit (see ``save(_:to:message:)``).
    @discardableResult
    public func save(_ value: Value, to fork: Fork = .main, message: String? = nil) async throws -> Commit {
        try await engine.perform { try self.save(value, to: fork, message: message) }
    }

    /// Changes the fork's value in place and commits the result (see ``update(_:message:_:)``).
    @discardableResult
    public func update(
        _ fork: Fork = .main, message: String? = nil, _ change: @escaping @Sendable (inout Value?) throws -> Void
    ) async throws -> Commit {
        try await engine.perform { try self.update(fork, message: message, change) }
    }

    /// Removes the fork's value with a tombstone commit (see ``remove(from:message:)``).
    @discardableResult
    public func remove(from fork: Fork = .main, message: String? = nil) async throws -> Commit {
        try await engine.perform { try self.remove(from: fork, message: message) }
    }

    /// Writes the value held by an earlier commit as a new commit on `fork` (see
    /// ``restore(_:in:)``).
    @discardableResult
    public func restore(_ commit: CommitID, in fork: Fork = .main) async throws -> Commit {
        try await engine.perform { try self.restore(commit, in: fork) }
    }
}
