import ForkStoreGit

/// A record as a derived index keeps it: where it is stored, the blob that holds it (so the
/// index can hand back records without walking the tree) and the decoded, migrated record.
package struct IndexableRecord<Record: Sendable>: Sendable {
    package let path: String
    package let blob: String
    package let record: Record
}

// The package API the query module builds its index on; git stays the truth, the index a cache.
extension RecordStore {
    /// The head of a fork, after checking this build can read it.
    package func readableHead(of fork: Fork) throws -> Commit {
        try engine.read { session in try session.readableHead(of: fork) }
    }

    /// Calls `body` with what `making` makes of each readable record stored at `entries` of
    /// `head` (every record of `head` when nil), in the order they are stored, decoded a batch
    /// at a time, so memory stays bounded however many; the path of each that cannot be read
    /// goes to `unreadable` (listings report them). `making` runs on the threads that decode,
    /// from any of them. `progress` hears how many records were handed out, at most ten
    /// times a second, and once when all were.
    package func forEachIndexableRecord<Made: Sendable>(
        _ entries: [(path: String, id: ObjectID)]? = nil, at head: Commit, making: @escaping @Sendable (IndexableRecord<Record>) -> Made,
        unreadable: (String) throws -> Void = { _ in }, progress: RecordProgress? = nil, _ body: (Made) throws -> Void
    ) throws {
        let entries = try entries ?? engine.read { session in try layout.entries(in: head.tree, session: session) }
        var done = 0, reported = ContinuousClock.now
        try decodeEntries(
            entries, origin: DataOrigin(head), inStorageOrder: true,
            making: { entry, record in making(IndexableRecord(path: entry.path, blob: entry.id.hex, record: record)) }
        ) { entry, result in
            switch result {
            case .success(let made): try body(made)
            case .failure: try unreadable(entry.path)
            }
            done += 1
            if let progress, done == entries.count || (done % 256 == 0 && ContinuousClock.now - reported >= .milliseconds(100)) {
                progress(done, entries.count)
                reported = ContinuousClock.now
            }
        }
    }

    /// The record files that differ between `old` and `head`, read from the tree difference,
    /// so the cost follows the change: the paths whose record is gone, and where each record
    /// added or changed is stored. Nil when `old` is not in the store (an index from elsewhere).
    package func recordDifferences(from old: CommitID, to head: Commit) throws -> (removed: [String], saved: [(path: String, id: ObjectID)])? {
        try engine.read { session in
            guard let before = try? session.existingCommit(old) else { return nil }
            // From a commit that holds no records (a new replica's first sync), every record is
            // new: listed from the tree, without the memory a difference of them all takes.
            guard try session.entry(atPath: RecordPath.root, inTree: before.tree) != nil else {
                return ([], try layout.entries(in: head.tree, session: session))
            }
            let differences = try layout.recordDifferences(from: before.tree, to: head.tree, in: session)
            return (differences.filter { $0.new == nil }.map(\.path), differences.compactMap { difference in difference.new.map { (difference.path, $0) } })
        }
    }

    /// Decodes records by the blobs an index holds for them, as read at `head`, and calls
    /// `body` with each in order, a batch at a time (memory stays bounded however many). The
    /// index holds only blobs that were listed at their paths and held the ids those paths are
    /// made from, so that check is not made again.
    package func forEachStored(_ entries: [(path: String, id: ObjectID)], at head: Commit, _ body: (Record) throws -> Void) throws {
        try decodeEntries(entries, origin: DataOrigin(head), pathsChecked: true) { _, result in try body(try result.get()) }
    }
}
