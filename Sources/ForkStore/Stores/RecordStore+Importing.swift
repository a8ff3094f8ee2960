import ForkStoreGit

/// What ``RecordStore/importRecords(to:batchSize:message:onSkipped:progress:from:)-4e9pr`` did.
public struct ImportReport: Sendable, Equatable {
    /// Records stored (a record given twice counts twice).
    public var imported = 0
    /// Commits made: one per batch that changed something.
    public var commits = 0
    /// Records refused (too large), each reported to `onSkipped`.
    public var skipped = 0
}

extension RecordStore {
    /// Stores a stream of records the way git's own `fast-import` would: one commit per
    /// `batchSize` records, written in segments of up to 8 commits and 4 MB of encoded records
    /// that each become one pack file and one move of the fork. A batch that reaches 4 MB ends
    /// there (its commit holds fewer records), so memory follows that budget and
    /// ``StoreOptions/maximumRecordSize``, never `batchSize` or the stream's length: records
    /// are pulled from `next` one at a time until it returns nil.
    ///
    /// A record larger than ``StoreOptions/maximumRecordSize`` is skipped and reported to
    /// `onSkipped`; any other error stops the import, with everything before the current
    /// segment stored. Other writers (in this process or others) wait at most for one segment.
    @discardableResult
    public func importRecords(
        to fork: Fork = .main, batchSize: Int = 1_000, message: String = "Import records",
        onSkipped: (_ id: String, _ error: StoreError) -> Void = { _, _ in },
        progress: (_ imported: Int) -> Void = { _ in },
        from next: () throws -> Record?
    ) throws -> ImportReport {
        var report = ImportReport()
        var exhausted = false
        let batchSize = max(1, batchSize)
        while !exhausted {
            // A cancelled import stops between segments: the segments before it are stored.
            try StoreThread.checkCancellation()
            // A segment is read and encoded before the store is locked.
            var segment: [[(path: String, bytes: [UInt8])]] = []
            var bytes = 0
            while !exhausted, segment.count < 8, bytes < Self.importSegmentBudget {
                var batch: [(path: String, bytes: [UInt8])] = []
                while batch.count < batchSize, bytes < Self.importSegmentBudget {
                    guard let record = try next() else {
                        exhausted = true
                        break
                    }
                    do {
                        let encoded = try layout.encode(record, id: record.id, limits: engine.blobLimits)
                        batch.append((RecordPath(id: record.id).description, encoded))
                        bytes += encoded.count
                    } catch {
                        report.skipped += 1
                        onSkipped(record.id, error)
                    }
                }
                if !batch.isEmpty { segment.append(batch) }
            }
            guard !segment.isEmpty else { break }
            let (_, made) = try engine.commits(
                on: fork, message: { "\(message) (\(segment[$0].count) records)" }, count: segment.count
            ) { session, index, parent in
                // A record given twice in one batch: the last one counts.
                var latest: [String: [UInt8]] = [:]
                for record in segment[index] { latest[record.path] = record.bytes }
                var changes: [TreeChange] = []
                for (path, bytes) in latest.sorted(by: { $0.key < $1.key }) {
                    changes.append(.upsert(path: path, blob: try session.writeBlob(bytes, path: path)))
                }
                return try session.updatedTree(parent.tree, applying: changes)
            }
            report.imported += segment.reduce(0) { $0 + $1.count }
            report.commits += made
            progress(report.imported)
        }
        return report
    }

    /// The encoded records an import holds before it writes them (4 MB): a segment ends once
    /// its records reach it, so an import holds at most this plus one record.
    package static var importSegmentBudget: Int { 4 << 20 }
}
