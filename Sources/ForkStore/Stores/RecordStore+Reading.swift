import ForkStoreGit
import Foundation
import Synchronization

extension RecordStore {
    /// The record with this id on a fork, or nil. Reads and decodes that record only.
    public func record(_ id: String, in fork: Fork = .main) throws -> Record? {
        try engine.read { session in try layout.record(id, in: session.readableHead(of: fork), session: session) }
    }

    /// How many records a fork holds: read from the head commit's `Record-Count` trailer, so it
    /// costs the same whatever the collection's size (older commits without one are counted).
    public func count(in fork: Fork = .main) throws -> Int {
        try engine.read { session in try layout.count(of: session.head(of: fork), in: session) }
    }

    /// Every record on a fork, in storage order (by shard).
    public func records(in fork: Fork = .main) throws -> [Record] {
        var all: [Record] = []
        try forEachRecord(in: fork) { all.append($0) }
        return all
    }

    /// The records that pass `filter`, sorted by `areInIncreasingOrder` when given. A full
    /// scan: every record is decoded.
    public func query(
        in fork: Fork = .main, where filter: (Record) throws -> Bool = { _ in true },
        sortedBy areInIncreasingOrder: ((Record, Record) throws -> Bool)? = nil
    ) throws -> [Record] {
        var matching: [Record] = []
        try forEachRecord(in: fork) { record in
            if try filter(record) { matching.append(record) }
        }
        if let areInIncreasingOrder { try matching.sort(by: areInIncreasingOrder) }
        return matching
    }

    /// Calls `body` with each record of a fork, decoding one at a time, in batches read under
    /// the store's lock so that writers are not held up by a long listing. The first file that
    /// cannot be read as a record stops the listing with its error.
    public func forEachRecord(in fork: Fork = .main, _ body: (Record) throws -> Void) throws {
        try forEachRecord(in: fork, onProblem: { throw $0.error }, body)
    }

    /// Calls `body` with each readable record of a fork and `onProblem` with each file that
    /// cannot be read as a record (see ``RecordProblem``), so that one damaged record does not
    /// hide the others. A record whose id is not the one its path is made from is a problem
    /// too: it could be neither edited nor removed by its id.
    public func forEachRecord(
        in fork: Fork = .main, onProblem: (RecordProblem) throws -> Void, _ body: (Record) throws -> Void
    ) throws {
        try decodeAll(at: engine.read { session in try session.readableHead(of: fork) }) { _, result in
            switch result {
            case .success(let record): try body(record)
            case .failure(let problem): try onProblem(problem)
            }
        }
    }

    /// Every record file of a commit, read and decoded (see ``decodeEntries(_:origin:_:)``).
    func decodeAll(
        at commit: Commit, _ body: ((path: String, id: ObjectID), Result<Record, RecordProblem>) throws -> Void
    ) throws {
        let entries = try engine.read { session in try layout.entries(in: commit.tree, session: session) }
        try decodeEntries(entries, origin: DataOrigin(commit), body)
    }

    /// Reads and decodes `entries` in batches (each read under the store's lock, so writers
    /// are not held up by a long listing; decoding, most of the work, on every core outside
    /// it) and calls `body` with each, in order.
    func decodeEntries(
        _ entries: [(path: String, id: ObjectID)], origin: DataOrigin,
        _ body: ((path: String, id: ObjectID), Result<Record, RecordProblem>) throws -> Void
    ) throws {
        var start = 0
        while start < entries.count {
            let batch = Array(entries[start..<min(start + 512, entries.count)])
            let blobs = try engine.read { session in
                batch.map { entry in Result { () throws(StoreError) in try session.readBlob(entry.id, path: entry.path) } }
            }
            let results = Self.inParallel(blobs.count) { index in
                layout.listed(blobs[index], path: batch[index].path, origin: origin)
            }
            for (entry, result) in zip(batch, results) { try body(entry, result) }
            start += batch.count
        }
    }

    /// `transform` of 0..<count, computed in slices on all cores; in order.
    private static func inParallel<Element: Sendable>(_ count: Int, _ transform: @Sendable (Int) -> Element) -> [Element] {
        let slices = min(count, ProcessInfo.processInfo.activeProcessorCount * 2)
        guard slices > 1 else { return (0..<count).map(transform) }
        let parts = Mutex([[Element]](repeating: [], count: slices))
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let part = (count * slice / slices..<count * (slice + 1) / slices).map(transform)
            parts.withLock { $0[slice] = part }
        }
        return parts.withLock { $0.flatMap { $0 } }
    }

    /// Every readable record of a fork, and every file that cannot be read as one.
    public func recordsAndProblems(in fork: Fork = .main) throws -> (records: [Record], problems: [RecordProblem]) {
        var records: [Record] = [], problems: [RecordProblem] = []
        try forEachRecord(in: fork, onProblem: { problems.append($0) }) { records.append($0) }
        return (records, problems)
    }
}
