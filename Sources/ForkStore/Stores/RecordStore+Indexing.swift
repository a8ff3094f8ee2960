import ForkStoreGit

/// A record as a derived index keeps it: where it is stored, the blob that holds it (so the
/// index can hand back records without walking the tree) and the decoded, migrated record.
package struct IndexableRecord<Record: Sendable>: Sendable {
    package let path: String
    package let blob: String
    package let record: Record
}

/// What changed in a collection between two commits, for an index to apply.
package struct IndexableChanges<Record: Sendable>: Sendable {
    /// Records added or changed.
    package var saved: [IndexableRecord<Record>] = []
    /// Paths whose record is gone (or can no longer be read).
    package var removed: [String] = []

    package init(saved: [IndexableRecord<Record>] = [], removed: [String] = []) {
        self.saved = saved
        self.removed = removed
    }
}

// The package API the query module builds its index on; git stays the truth, the index a cache.
extension RecordStore {
    /// The head of a fork, after checking this build can read it.
    package func readableHead(of fork: Fork) throws -> Commit {
        try engine.read { session in try session.readableHead(of: fork) }
    }

    /// Calls `body` with what `making` makes of every readable record at `head`, in the order
    /// they are stored, decoded a batch at a time (damaged ones are left out: listings report
    /// them). `making` runs on the threads that decode, from any of them.
    package func forEachIndexableRecord<Made: Sendable>(
        at head: Commit, making: @escaping @Sendable (IndexableRecord<Record>) -> Made, _ body: (Made) throws -> Void
    ) throws {
        let entries = try engine.read { session in try layout.entries(in: head.tree, session: session) }
        try decodeEntries(
            entries, origin: DataOrigin(head), inStorageOrder: true,
            making: { entry, record in making(IndexableRecord(path: entry.path, blob: entry.id.hex, record: record)) }
        ) { _, result in
            if case .success(let made) = result { try body(made) }
        }
    }

    /// The records that differ between `old` and `head`, read from the tree difference, so the
    /// cost follows the change; nil when `old` is not in the store (an index from elsewhere).
    package func indexableChanges(from old: CommitID, to head: Commit) throws -> IndexableChanges<Record>? {
        let differences = try engine.read { session -> [TreeDifference]? in
            guard let before = try? session.existingCommit(old) else { return nil }
            return try layout.recordDifferences(from: before.tree, to: head.tree, in: session)
        }
        guard let differences else { return nil }
        var changes = IndexableChanges<Record>(removed: differences.filter { $0.new == nil }.map(\.path))
        let entries = differences.compactMap { difference in difference.new.map { (path: difference.path, id: $0) } }
        try decodeEntries(entries, origin: DataOrigin(head)) { entry, result in
            switch result {
            case .success(let record): changes.saved.append(IndexableRecord(path: entry.path, blob: entry.id.hex, record: record))
            case .failure: changes.removed.append(entry.path)
            }
        }
        return changes
    }

    /// Decodes records by the blobs an index holds for them, as read at `head`, and calls
    /// `body` with each in order, a batch at a time (memory stays bounded however many). The
    /// index holds only blobs that were listed at their paths and held the ids those paths are
    /// made from, so that check is not made again.
    package func forEachStored(_ entries: [(path: String, id: ObjectID)], at head: Commit, _ body: (Record) throws -> Void) throws {
        try decodeEntries(entries, origin: DataOrigin(head), pathsChecked: true) { _, result in try body(try result.get()) }
    }
}
