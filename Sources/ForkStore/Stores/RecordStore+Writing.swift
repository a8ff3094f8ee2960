import ForkStoreGit

extension RecordStore {
    /// Saves one record in one commit. When it is unchanged no commit is made and the current
    /// head is returned.
    @discardableResult
    public func save(_ record: Record, to fork: Fork = .main, message: String? = nil) throws -> Commit {
        try transaction(on: fork, message: message ?? "Save record \(record.id)") { $0.save(record) }
    }

    /// Saves many records in one commit.
    @discardableResult
    public func save(_ records: [Record], to fork: Fork = .main, message: String? = nil) throws -> Commit {
        try transaction(on: fork, message: message ?? "Save \(records.count) records") { changes in
            for record in records { changes.save(record) }
        }
    }

    /// Deletes one record in one commit.
    @discardableResult
    public func delete(_ id: String, from fork: Fork = .main, message: String? = nil) throws -> Commit {
        try transaction(on: fork, message: message ?? "Delete record \(id)") { $0.delete(id) }
    }

    /// Deletes many records in one commit.
    @discardableResult
    public func delete(_ ids: [String], from fork: Fork = .main, message: String? = nil) throws -> Commit {
        try transaction(on: fork, message: message ?? "Delete \(ids.count) records") { changes in
            for id in ids { changes.delete(id) }
        }
    }

    /// Groups saves and deletes into one commit. `body` runs before the store is locked; every
    /// record is encoded and size-checked before anything is written.
    // No async twin: the async transaction below runs `body` on the caller's actor.
    @discardableResult
    public func transaction(
        on fork: Fork = .main, message: String = "Change records", _ body: (inout RecordChanges<Record>) throws -> Void
    ) throws -> Commit {
        var changes = RecordChanges<Record>()
        try body(&changes)
        return try commit(changes, on: fork, message: message)
    }

    /// Groups saves and deletes into one commit. `body` runs first, on the caller's actor, so it
    /// may use the caller's state; the commit then runs on a thread of ForkStore's own.
    @discardableResult
    public func transaction(
        on fork: Fork = .main, message: String = "Change records", isolation: isolated (any Actor)? = #isolation,
        _ body: (inout RecordChanges<Record>) throws -> Void
    ) async throws -> Commit {
        var changes = RecordChanges<Record>()
        try body(&changes)
        let collected = changes
        return try await onStoreThread { try self.commit(collected, on: fork, message: message) }
    }

    /// Commits the changes of a transaction whose body has run.
    func commit(_ changes: RecordChanges<Record>, on fork: Fork, message: String) throws -> Commit {
        // Encode outside the lock: the expensive part, and where a too-large record is refused.
        var encoded: [(id: String, path: String, record: Record?, bytes: [UInt8]?, lenient: Bool)] = []
        for change in changes.changes {
            let path = RecordPath(id: change.id).description
            let bytes = try change.record.map { (record) throws(StoreError) in
                try layout.encode(record, id: change.id, limits: engine.blobLimits)
            }
            encoded.append((change.id, path, change.record, bytes, change.deletesOwnSave))
        }
        // Many changes go into one pack file rather than a file per object.
        let write = encoded.count >= 32 ? engine.commitInOnePack : engine.commit
        return try write(fork, message) { session, head in
            var treeChanges: [TreeChange] = []
            for change in encoded {
                if let bytes = change.bytes {
                    treeChanges.append(.upsert(path: change.path, blob: try session.writeBlob(bytes, path: change.path)))
                } else if try session.entry(atPath: change.path, inTree: head.tree) != nil {
                    treeChanges.append(.remove(path: change.path))
                } else if !change.lenient {
                    throw StoreError.recordNotFound(id: change.id, fork: fork.name)
                }
            }
            let tree = try session.updatedTree(head.tree, applying: treeChanges)
            let unchanged = try pathsHoldingEqualRecords(encoded, from: head, to: tree, session: session)
            guard !unchanged.isEmpty else { return tree }
            return try session.updatedTree(head.tree, applying: treeChanges.filter { !unchanged.contains($0.path) })
        }
    }

    /// Removes damaged record files, as ``RecordStore/forEachRecord(in:onProblem:_:)-6pxmn`` reports
    /// them, from a fork in one commit. The history keeps them. Only files under `records/`
    /// can be removed this way.
    @discardableResult
    public func removeDamaged(_ problems: [RecordProblem], from fork: Fork = .main, message: String? = nil) throws -> Commit {
        let paths = problems.map(\.path)
        for path in paths where !path.hasPrefix(RecordPath.root + "/") || path.split(separator: "/").contains("..") {
            throw StoreError.recordNotFound(id: path, fork: fork.name)
        }
        return try engine.commit(on: fork, message: message ?? "Remove \(paths.count) damaged record file(s)") { session, head in
            var changes: [TreeChange] = []
            for path in paths where try session.entry(atPath: path, inTree: head.tree) != nil {
                changes.append(.remove(path: path))
            }
            return try session.updatedTree(head.tree, applying: changes)
        }
    }

    /// The paths, among those a commit from `head` to `tree` changes, where `head` holds a record
    /// equal to the one saved (for `Equatable` records) under another blob: the same record
    /// encoded differently (a `Set` stored in hash order by an earlier ForkStore), which must
    /// not make a commit.
    private func pathsHoldingEqualRecords(
        _ saved: [(id: String, path: String, record: Record?, bytes: [UInt8]?, lenient: Bool)], from head: Commit,
        to tree: ObjectID, session: StoreSession
    ) throws -> Set<String> {
        guard saved.contains(where: { $0.record is any Equatable }), tree != head.tree else { return [] }
        var records: [String: Record] = [:]
        for change in saved { records[change.path] = change.record }
        var unchanged = Set<String>()
        for difference in try session.differences(from: head.tree, to: tree) {
            guard let old = difference.old, difference.new != nil, let record = records[difference.path],
                let current = try? layout.read(old, path: difference.path, origin: DataOrigin(head), session: session)
            else { continue }
            if equalIfEquatable(current.record, record) == true { unchanged.insert(difference.path) }
        }
        return unchanged
    }

    /// Changes one record in place and commits it. `change` runs while the store is locked, so
    /// it sees the newest version and no other write slips in between; keep it short and do
    /// not call the store from inside it. Throws ``StoreError/recordNotFound(id:fork:)`` when
    /// there is no such record, and ``StoreError/encodingFailed(reason:)`` when `change`
    /// changes the record's id (save it under the new id and delete the old one instead).
    @discardableResult
    public func update(
        _ id: String, in fork: Fork = .main, message: String? = nil, _ change: (inout Record) throws -> Void
    ) throws -> Commit {
        let path = RecordPath(id: id).description
        return try engine.commit(on: fork, message: message ?? "Update record \(id)") { session, head in
            guard var record = try layout.record(id, in: head, session: session) else {
                throw StoreError.recordNotFound(id: id, fork: fork.name)
            }
            let before = record
            try change(&record)
            if equalIfEquatable(before, record) == true { return head.tree }
            let bytes = try layout.encode(record, id: id, limits: engine.blobLimits)
            return try session.updatedTree(head.tree, applying: [.upsert(path: path, blob: session.writeBlob(bytes, path: path))])
        }
    }
}
