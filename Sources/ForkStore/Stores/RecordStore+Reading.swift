import ForkStoreGit
import Foundation

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

    /// Every record on a fork, in the order they are stored.
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

    /// Every record file of a commit, read and decoded in the order they are stored (see
    /// ``decodeEntries(_:origin:inStorageOrder:pathsChecked:_:)``).
    func decodeAll(
        at commit: Commit, _ body: ((path: String, id: ObjectID), Result<Record, RecordProblem>) throws -> Void
    ) throws {
        let entries = try engine.read { session in try layout.entries(in: commit.tree, session: session) }
        try decodeEntries(entries, origin: DataOrigin(commit), inStorageOrder: true, body)
    }

    /// How many records a read takes before it maps the packs whole (``MappedPacks``): fewer
    /// are read through libgit2, which needs no set-up.
    static var mappedPacksThreshold: Int { 256 }

    /// Reads and decodes `entries` and calls `body` with each: in the order given, or, with
    /// `inStorageOrder`, in the order their blobs lie in the object database, which reads each
    /// pack front to back instead of jumping about it (a tree lists records by hash).
    ///
    /// Entries are cut into parts: a part's blobs are read (from the packs mapped whole for a
    /// large read, ``MappedPacks``; else, or where that fails, under the store's lock, so
    /// writers are not held up by a long listing) and decoded, the larger part of the work,
    /// outside it. Parts are done on pool threads a bounded way ahead while the caller hands
    /// those done to `body`, and the caller takes up the parts no thread has started when the
    /// one it wants is not done (``WorkInParts``), so a listing never waits for a thread of a
    /// pool other work may hold.
    ///
    /// With `pathsChecked`, the caller vouches that each entry's blob at its path was listed
    /// before and held the id its path is made from (an index's rows), and that check is not
    /// made again.
    func decodeEntries(
        _ entries: [(path: String, id: ObjectID)], origin: DataOrigin, inStorageOrder: Bool = false, pathsChecked: Bool = false,
        _ body: ((path: String, id: ObjectID), Result<Record, RecordProblem>) throws -> Void
    ) throws {
        try decodeEntries(entries, origin: origin, inStorageOrder: inStorageOrder, pathsChecked: pathsChecked, making: { $1 }, body)
    }

    /// ``decodeEntries(_:origin:inStorageOrder:pathsChecked:_:)``, handing `body` what `making`
    /// makes of each record: `making` runs beside the decoding, on the threads that decode, so
    /// work per record (an index's rows, say) is shared out as the decoding is.
    func decodeEntries<Made: Sendable>(
        _ entries: [(path: String, id: ObjectID)], origin: DataOrigin, inStorageOrder: Bool = false, pathsChecked: Bool = false,
        making: @escaping @Sendable ((path: String, id: ObjectID), Record) -> Made,
        _ body: ((path: String, id: ObjectID), Result<Made, RecordProblem>) throws -> Void
    ) throws {
        // Copied into storage order only when asked: a copy of 100,000 entries is 4 ms on the
        // caller's thread before any record is decoded.
        let ordered = inStorageOrder && entries.count > 1
            ? try engine.read { session in session.repository.storageOrder(of: entries.map(\.id)) }.map { entries[$0] }
            : entries
        guard !ordered.isEmpty else { return }
        let layout = layout, engine = engine
        // Many records are read from the packs mapped whole, on every thread at once (see
        // ``MappedPacks``); what is not found there, or fails there, through libgit2.
        let packs = entries.count >= Self.mappedPacksThreshold ? try engine.read { session in MappedPacks(session.repository.packs()) } : nil
        let maximumSize = engine.defaultMaximumIncomingObjectSize
        // Read once: on Linux each read opens the cgroup's files.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // Parts of about 64 records (a short listing in up to 4 per core, of at least 32), 16
        // per core from the one the caller takes on: on 2 cores, about 2,000 records decoded
        // and not yet handed out. Going batch by batch (512 records), the helpers waited at the
        // end of each: the listing of 100,000 records took 0.60 s where it now takes 0.50.
        let parts = max(1, min(ordered.count / 32, max(cores * 4, ordered.count / 64)))
        @Sendable func range(of part: Int) -> Range<Int> { ordered.count * part / parts..<ordered.count * (part + 1) / parts }
        // The loops that run once per record index arrays: in this generic function, the
        // standard library's generic sequences over `Made` (zip, map, flatMap) looked up their
        // types' metadata for every record (6% of a listing's processor time).
        let work = WorkInParts(parts: parts, helpers: cores, window: cores * 16) { part -> Result<[Result<Made, RecordProblem>], any Error> in
            let range = range(of: part)
            var fromPacks = [[UInt8]?](repeating: nil, count: range.count)
            if let packs, let inflater = try? Inflater() {
                for index in range {
                    if let object = try? packs.object(ordered[index].id, maximumSize: maximumSize, inflater: inflater), object.kind == .blob {
                        fromPacks[index - range.lowerBound] = object.bytes
                    }
                }
            }
            let blobs: [Result<[UInt8], StoreError>]
            let complete = fromPacks.compactMap { $0 }
            if complete.count == range.count {
                blobs = complete.map { .success($0) }
            } else {
                do {
                    blobs = try engine.read { session in
                        range.map { index in
                            fromPacks[index - range.lowerBound].map { .success($0) } ?? Result { () throws(StoreError) in
                                try session.readBlob(ordered[index].id, path: ordered[index].path)
                            }
                        }
                    }
                } catch {
                    return .failure(error)
                }
            }
            var made: [Result<Made, RecordProblem>] = []
            made.reserveCapacity(range.count)
            for index in range {
                switch layout.listed(blobs[index - range.lowerBound], path: ordered[index].path, origin: origin, pathChecked: pathsChecked) {
                case .success(let record): made.append(.success(making(ordered[index], record)))
                case .failure(let problem): made.append(.failure(problem))
                }
            }
            return .success(made)
        }
        defer { work.abandon() }
        for part in 0..<parts {
            try StoreThread.checkCancellation()
            let made = try work.take(part).get()
            for (index, position) in range(of: part).enumerated() {
                try body(ordered[position], made[index])
            }
        }
    }

    /// Every readable record of a fork, and every file that cannot be read as one.
    public func recordsAndProblems(in fork: Fork = .main) throws -> (records: [Record], problems: [RecordProblem]) {
        var records: [Record] = [], problems: [RecordProblem] = []
        try forEachRecord(in: fork, onProblem: { problems.append($0) }) { records.append($0) }
        return (records, problems)
    }
}
