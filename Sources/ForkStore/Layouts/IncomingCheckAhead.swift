import Dispatch
import ForkStoreGit
import Synchronization

/// A check ahead of a fetch's blobs (``ContentLayout/startCheckAhead(_:limits:in:)``) running
/// on other threads while the walk reads the fetched trees on the caller's: the two took turns,
/// the walk on one core after the check on every core. It finds record blobs that pass and the
/// id each holds; ``finish(into:)`` tells the fetch's ``IncomingCheckMemory``.
///
/// The work starts on a pool thread; if none has taken it up by the time the caller finishes
/// it, the caller does it itself, so a check never waits for a pool other work may hold (as
/// ``WorkInParts`` does).
final class IncomingCheckAhead: Sendable {
    private let modelVersion: Int?
    private let work: @Sendable (_ found: @Sendable (ObjectID, String) -> Void) -> Void
    private let found = Mutex<[(blob: ObjectID, record: String)]>([])
    private let started = Atomic<Bool>(false), ended = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work`, which calls `found` with each blob that passed for data of
    /// `modelVersion` and the record it holds.
    init(modelVersion: Int?, _ work: @escaping @Sendable (_ found: @Sendable (ObjectID, String) -> Void) -> Void) {
        (self.modelVersion, self.work) = (modelVersion, work)
        DispatchQueue.global().async { self.run() }
    }

    /// Whether the work is over: finishing it then waits for nothing.
    var isDone: Bool { ended.load(ordering: .acquiring) }

    /// Waits for the work (doing it here if no thread took it up) and tells `memory` what passed.
    func finish(into memory: IncomingCheckMemory) {
        if !run() { done.wait() }
        let found = found.withLock { $0 }
        memory.recordsCheckedAhead += found.count
        for (blob, record) in found { memory.remember(record: record, in: blob, modelVersion: modelVersion) }
    }

    /// Does the work unless another thread took it; whether this one did.
    @discardableResult
    private func run() -> Bool {
        guard started.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return false }
        work { blob, record in found.withLock { $0.append((blob, record)) } }
        ended.store(true, ordering: .releasing)
        done.signal()
        return true
    }
}
