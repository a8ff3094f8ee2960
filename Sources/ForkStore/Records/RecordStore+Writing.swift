import ForkStoreGit

/// The changes one ``RecordStore/transaction(on:message:_:)`` commits together.
public struct RecordChanges<Record: Identifiable & Sendable>: Sendable where Record.ID == String {
    /// One pending change. Ids are compared by their UTF-8 bytes: "é" and "e\u{301}" are two
    /// records, although Swift considers the strings equal.
    struct Change: Sendable {
        var id: String
        /// The new record, or nil to delete it.
        var record: Record?
        /// A delete of a record this transaction saved: no error if the store lacks it.
        var deletesOwnSave = false
    }

    private(set) var changes: [Change] = []
    private var positions: [[UInt8]: Int] = [:]

    /// Saves a record (adds it, or replaces the record with its id). The last change to an id wins.
    public mutating func save(_ record: Record) {
        set(Change(id: record.id, record: record))
    }

    /// Deletes the record with this id; committing fails with
    /// ``StoreError/recordNotFound(id:fork:)`` if neither the store nor this transaction has it.
    public mutating func delete(_ id: String) {
        let savedHere = positions[Array(id.utf8)].map { changes[$0].record != nil || changes[$0].deletesOwnSave } ?? false
        set(Change(id: id, record: nil, deletesOwnSave: savedHere))
    }

    /// How many records this transaction changes.
    public var count: Int { changes.count }

    private mutating func set(_ change: Change) {
        let key = Array(change.id.utf8)
        if let index = positions[key] {
            changes[index] = change
        } else {
            positions[key] = changes.count
            changes.append(change)
        }
    }
}

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
    @discardableResult
    public func transaction(
        on fork: Fork = .main, message: String = "Change records", _ body: (inout RecordChanges<Record>) throws -> Void
    ) throws -> Commit {
        var changes = RecordChanges<Record>()
        try body(&changes)
        // Encode outside the lock: the expensive part, and where a too-large record is refused.
        var encoded: [(id: String, path: RecordPath, bytes: [UInt8]?, lenient: Bool)] = []
        for change in changes.changes {
            let id = change.id, path = RecordPath(id: id)
            guard let record = change.record else {
                encoded.append((id, path, nil, change.deletesOwnSave))
                continue
            }
            encoded.append((id, path, try encode(record, id: id), false))
        }
        let outcome = try engine.advance(fork, kind: .committed) { repository, head in
            try Store<Record>.checkStamps(of: head)
            var treeChanges: [TreeChange] = []
            for change in encoded {
                let path = change.path.description
                if let bytes = change.bytes {
                    let blob = try git("writing record \(change.id)") { () throws(GitError) in try repository.writeBlob(bytes) }
                    treeChanges.append(.upsert(path: path, blob: blob))
                } else {
                    let exists = try git("reading \(path)") { () throws(GitError) in
                        try repository.entry(atPath: path, inTree: head.tree) != nil
                    }
                    if exists {
                        treeChanges.append(.remove(path: path))
                    } else if !change.lenient {
                        throw StoreError.recordNotFound(id: change.id, fork: fork.name)
                    }
                }
            }
            let tree = try git("writing the records tree") { () throws(GitError) in
                try repository.updatedTree(from: head.tree, applying: treeChanges)
            }
            guard tree != head.tree else { return .nothing }
            let text = CommitMessage.compose(message, trailers: Store<Record>.stamp(lamport: head.nextLamport))
            return .commit(tree: tree, parents: [head.id.objectID], message: text)
        }
        return outcome.newHead ?? outcome.oldHead
    }
}

extension RecordStore {
    /// Changes one record in place and commits it. `change` runs while the store is locked, so
    /// it sees the newest version and no other write slips in between; keep it short and do
    /// not call the store from inside it. Throws ``StoreError/recordNotFound(id:fork:)`` when
    /// there is no such record.
    @discardableResult
    public func update(
        _ id: String, in fork: Fork = .main, message: String? = nil, _ change: (inout Record) throws -> Void
    ) throws -> Commit {
        let path = RecordPath(id: id).description
        let outcome = try engine.advance(fork, kind: .committed) { repository, head in
            try Store<Record>.checkStamps(of: head)
            guard let entry = try git("reading \(path)", { () throws(GitError) in
                try repository.entry(atPath: path, inTree: head.tree)
            }) else { throw StoreError.recordNotFound(id: id, fork: fork.name) }
            var record = try Self.decode(entry.id, path: path, commit: head, expecting: id, in: repository)
            try change(&record)
            let bytes = try encode(record, id: id)
            let tree = try git("writing record \(id)") { () throws(GitError) in
                try repository.updatedTree(from: head.tree, applying: [.upsert(path: path, blob: try repository.writeBlob(bytes))])
            }
            guard tree != head.tree else { return .nothing }
            let text = CommitMessage.compose(message ?? "Update record \(id)", trailers: Store<Record>.stamp(lamport: head.nextLamport))
            return .commit(tree: tree, parents: [head.id.objectID], message: text)
        }
        return outcome.newHead ?? outcome.oldHead
    }

    /// A record's blob, refused when it is larger than ``StoreOptions/maximumRecordSize``.
    private func encode(_ record: Record, id: String) throws -> [UInt8] {
        let bytes = try ValueCodec.encode(RecordEnvelope(id: id, record: record))
        guard bytes.count <= options.maximumRecordSize else {
            throw StoreError.recordTooLarge(id: id, size: bytes.count, limit: options.maximumRecordSize)
        }
        return bytes
    }

    /// How many commits `fork` has that `other` lacks, and the reverse.
    public func divergence(of fork: Fork, from other: Fork) throws -> (ahead: Int, behind: Int) {
        try engine.divergence(of: fork, from: other)
    }

    /// Packs every loose object into one pack file now (writes also pack on their own, see
    /// ``StoreOptions/packThreshold``). Returns how many objects were packed.
    @discardableResult
    public func pack() throws -> Int { try engine.pack() }

    /// Whether a fork exists.
    public func hasFork(_ fork: Fork) throws -> Bool { try engine.hasFork(fork) }
}
