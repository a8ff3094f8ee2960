import ForkStoreGit
import ForkStoreLocks

/// A check ahead of a fetch's blobs (``ContentLayout/startCheckAhead(_:limits:reading:)``)
/// running on another thread while the fetch arrives, or while the walk reads the fetched trees
/// on the caller's (without it the two took turns, the walk on one core after the check on
/// every core). It finds record blobs that pass and the id each holds; ``finish(into:)`` tells
/// the fetch's ``IncomingCheckMemory``.
///
/// It is one part of ``WorkInParts``: started on a pool thread (a thread of its own for an
/// arriving pack, which waits on the network), done by the caller if no thread has taken it up
/// when the walk needs it (an arriving pack's fetch is over by then: it reads what is left).
final class IncomingCheckAhead: Sendable {
    /// The model version its blobs are read for.
    let modelVersion: Int?
    private let work: WorkInParts<(found: [(blob: ObjectID, record: String)], readEveryBlob: Bool)>

    /// Starts `find` (on a thread of its own when it `waits` for a fetch), which calls `found`
    /// with each blob that passed for data of `modelVersion` and the record it holds, from any
    /// thread, and returns whether it read every blob there was.
    init(
        modelVersion: Int?, waits: Bool = false, _ find: @escaping @Sendable (_ found: @Sendable (ObjectID, String) -> Void) -> Bool
    ) {
        self.modelVersion = modelVersion
        work = WorkInParts(parts: 1, helpers: 1, onOwnThreads: waits) { _ in
            let found = Locked<[(blob: ObjectID, record: String)]>([])
            let readEveryBlob = find { blob, record in found.withLock { $0.append((blob, record)) } }
            return (found.withLock { $0 }, readEveryBlob)
        }
    }

    /// Whether the work is over: finishing it then waits for nothing.
    var isDone: Bool { work.isDone }

    /// Waits for the work (doing it here if no thread took it up) and tells `memory` what
    /// passed. Returns whether every blob was read (what did not pass is the walk's to say).
    /// A check of an arriving pack ends when the pack is complete or its reading stopped
    /// (``ArrivingPack/stop()``, which the fetch does when it ends).
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
