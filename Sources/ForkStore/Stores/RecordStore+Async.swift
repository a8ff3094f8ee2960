/// The `async` variants, for app code on the main actor or any other: each runs the same work
/// as its synchronous twin on one of ForkStore's own threads, so the caller's actor is free
/// while the disk is busy (as GRDB's `async` `read` and `write` do).
extension RecordStore {
    /// The record with this id on a fork, or nil.
    public func record(_ id: String, in fork: Fork = .main) async throws -> Record? {
        try await engine.perform { try self.record(id, in: fork) }
    }

    /// How many records a fork holds.
    public func count(in fork: Fork = .main) async throws -> Int {
        try await engine.perform { try self.count(in: fork) }
    }

    /// Every record on a fork, in the order they are stored.
    public func records(in fork: Fork = .main) async throws -> [Record] {
        try await engine.perform { try self.records(in: fork) }
    }

    /// The records that pass `filter`, sorted by `areInIncreasingOrder` when given (see
    /// ``query(in:where:sortedBy:)``).
    public func query(
        in fork: Fork = .main, where filter: @escaping @Sendable (Record) throws -> Bool = { _ in true },
        sortedBy areInIncreasingOrder: (@Sendable (Record, Record) throws -> Bool)? = nil
    ) async throws -> [Record] {
        try await engine.perform { try self.query(in: fork, where: filter, sortedBy: areInIncreasingOrder) }
    }

    /// Saves one record in one commit.
    @discardableResult
    public func save(_ record: Record, to fork: Fork = .main, message: String? = nil) async throws -> Commit {
        try await engine.perform { try self.save(record, to: fork, message: message) }
    }

    /// Saves many records in one commit.
    @discardableResult
    public func save(_ records: [Record], to fork: Fork = .main, message: String? = nil) async throws -> Commit {
        try await engine.perform { try self.save(records, to: fork, message: message) }
    }

    /// Deletes one record in one commit.
    @discardableResult
    public func delete(_ id: String, from fork: Fork = .main, message: String? = nil) async throws -> Commit {
        try await engine.perform { try self.delete(id, from: fork, message: message) }
    }

    /// Deletes many records in one commit.
    @discardableResult
    public func delete(_ ids: [String], from fork: Fork = .main, message: String? = nil) async throws -> Commit {
        try await engine.perform { try self.delete(ids, from: fork, message: message) }
    }

    /// Groups saves and deletes into one commit. `body` runs first, on the caller's actor; the
    /// commit runs on one of ForkStore's threads.
    @discardableResult
    public func transaction(
        on fork: Fork = .main, message: String = "Change records", isolation: isolated (any Actor)? = #isolation,
        _ body: (inout RecordChanges<Record>) throws -> Void
    ) async throws -> Commit {
        var changes = RecordChanges<Record>()
        try body(&changes)
        let collected = changes
        return try await engine.perform { try self.commit(collected, on: fork, message: message) }
    }

    /// Changes one record in place and commits it (see ``update(_:in:message:_:)``).
    @discardableResult
    public func update(
        _ id: String, in fork: Fork = .main, message: String? = nil, _ change: @escaping @Sendable (inout Record) throws -> Void
    ) async throws -> Commit {
        try await engine.perform { try self.update(id, in: fork, message: message, change) }
    }
}
