import ForkStoreGit
import ForkStoreLocks

/// A check ahead of a fetch's blobs (``ContentLayout/startCheckAhead(_:limits:reading:)``)
/// running on other threads while the fetch arrives, or while the walk reads the fetched trees
/// on the caller's: the two took turns,
/// the walk on one core after the check on every core. It finds record blobs that pass and the
/// id each holds; ``finish(into:)`` tells the fetch's ``IncomingCheckMemory``.
///
/// It is one part of ``WorkInParts``: started on a pool thread, done by the caller if no pool
/// thread has taken it up when the walk needs it.
final class IncomingCheckAhead: Sendable {
    /// The model version its blobs are read for.
    let modelVersion: Int?
    private let work: WorkInParts<(found: [(blob: ObjectID, record: String)], readEveryBlob: Bool)>

    /// Starts `find`, which calls `found` with each blob that passed for data of
    /// `modelVersion` and the record it holds, from any thread, and returns whether it read
    /// every blob there was.
    init(modelVersion: Int?, _ find: @escaping @Sendable (_ found: @Sendable (ObjectID, String) -> Void) -> Bool) {
        self.modelVersion = modelVersion
        work = WorkInParts(parts: 1, helpers: 1) { _ in
            let found = Locked<[(blob: ObjectID, record: String)]>([])
            let readEveryBlob = find { blob, record in found.withLock { $0.append((blob, record)) } }
            return (found.withLock { $0 }, readEveryBlob)
        }
    }

    /// Whether the work is over: finishing it then waits for nothing.
    var isDone: Bool { work.isDone }

    /// Waits for the work (doing it here if no thread took it up) and tells `memory` what
    /// passed. Returns whether every blob was read (what did not pass is the walk's to say).
    @discardableResult
    func finish(into memory: IncomingCheckMemory) -> Bool {
        var readEveryBlob = true
        for (found, readAll) in work.results() {
            readEveryBlob = readEveryBlob && readAll
            memory.recordsCheckedAhead += found.count
            for (blob, record) in found { memory.remember(record: record, in: blob, modelVersion: modelVersion) }
        }
        return readEveryBlob
    }
}
