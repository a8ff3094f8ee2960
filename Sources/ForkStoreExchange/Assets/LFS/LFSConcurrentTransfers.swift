import ForkStore
import Foundation
import ForkStoreLocks
import Synchronization

/// Moves the objects of one batch several at a time, each on a thread and a connection of its
/// own, as git-lfs does (`lfs.concurrenttransfers`, 8 by default): a server spends most of a
/// small object's time on the request itself, and one object's request overlaps the next
/// one's file work here. The calling thread is one of the workers; the others are threads
/// made for the batch and joined before it returns.
///
/// A failure of one object is kept and the others go on; a failure of the whole transfer (no
/// connection, a 401, a local file, cancellation) stops every worker: those in a request stop
/// it (their partial files stay for a later download to resume), no new object starts, and
/// the failure is thrown once all have stopped. Progress reaches the caller one call at a time.
struct LFSConcurrentTransfers {
    /// The most objects moving at once: git-lfs's default.
    static let width = 8

    private let client: HTTPClient
    /// One session a worker, made when the worker first needs one and kept for later batches
    /// (their connections stay open).
    private var sessions: [HTTPSession] = []

    init(client: HTTPClient) {
        self.client = client
    }

    /// The calling thread's session, for batch requests.
    mutating func first() throws(HTTPFailure) -> HTTPSession {
        if sessions.isEmpty { sessions.append(try client.session()) }
        return sessions[0]
    }

    /// Runs `move` for each of `objects` on up to ``width`` workers. Returns the failures of
    /// single objects by their index in `objects`; throws the first failure of the whole
    /// transfer. `move` gets the transport to use (one that stops when another worker failed
    /// the whole transfer), the object, its worker's session and the serialized progress.
    mutating func run(
        _ objects: [AssetObject], transport: LFSTransport, progress: (AssetTransferCount) -> Void,
        _ move: (LFSTransport, AssetObject, HTTPSession, (AssetTransferCount) -> Void) throws -> Void
    ) throws -> [Int: AssetTransferFailure] {
        guard !objects.isEmpty else { return [:] }
        let workers = min(Self.width, objects.count)
        while sessions.count < workers { sessions.append(try client.session()) }
        if workers == 1 {
            let session = sessions[0]
            return try withoutActuallyEscaping(progress) { progress in
                var failures: [Int: AssetTransferFailure] = [:]
                for (index, object) in objects.enumerated() {
                    do {
                        try move(transport, object, session, progress)
                    } catch let failure as AssetTransferFailure {
                        failures[index] = failure
                    }
                }
                return failures
            }
        }
        let shared = Shared()
        let stopping = transport.stopping { shared.stopped.load(ordering: .relaxed) }
        return try withoutActuallyEscaping(progress) { progress in
            try withoutActuallyEscaping(move) { move in
                // Every thread is joined before this returns, and the box lets go of the
                // closures then (a thread object may outlive its block's run): they outlive
                // no call. Progress is called under a lock, one call at a time.
                let box = WorkBox(UncheckedWork(sessions: sessions, objects: objects, transport: stopping, progress: progress, move: move))
                defer { box.work = nil }
                let done = DispatchSemaphore(value: 0)
                for worker in 1..<workers {
                    let thread = Thread {
                        box.drain(worker: worker, shared: shared)
                        done.signal()
                    }
                    thread.name = "ForkStore LFS transfer \(worker)"
                    thread.start()
                }
                box.drain(worker: 0, shared: shared)
                for _ in 1..<workers { done.wait() }
                if let failure = shared.wholeFailure.withLock({ $0 }) { throw failure.error }
                return shared.failures.withLock { $0 }
            }
        }
    }

    /// What the workers of one batch share.
    private final class Shared: Sendable {
        let next = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        let failures = Locked<[Int: AssetTransferFailure]>([:])
        let wholeFailure = Locked<SendableError?>(nil)
        /// Held while the app's progress closure runs: one call at a time. A bare `NSLock`, as
        /// there is no value to guard: a `Locked<Void>`'s empty value has no address of its own
        /// (a pointer to it is the object's), and ThreadSanitizer reported a race on it.
        let progressLock = NSLock()
    }

    /// An error crossing from a worker to the calling thread once the worker has ended.
    private struct SendableError: @unchecked Sendable {
        var error: any Error
    }

    /// Holds the batch's work for its threads until all have ended.
    private final class WorkBox: @unchecked Sendable {
        var work: UncheckedWork?

        init(_ work: UncheckedWork) {
            self.work = work
        }

        func drain(worker: Int, shared: Shared) {
            work?.drain(worker: worker, shared: shared)
        }
    }

    /// The batch's work, handed to its threads. Its closures and sessions are not `Sendable`:
    /// each session is used by one worker only, progress only under `progressLock`, and the
    /// threads end before the closures' call does.
    private struct UncheckedWork: @unchecked Sendable {
        let sessions: [HTTPSession]
        let objects: [AssetObject]
        let transport: LFSTransport
        let progress: (AssetTransferCount) -> Void
        let move: (LFSTransport, AssetObject, HTTPSession, (AssetTransferCount) -> Void) throws -> Void

        /// Takes objects until there are none left or the transfer stopped.
        func drain(worker: Int, shared: Shared) {
            let session = sessions[worker]
            let serialized: (AssetTransferCount) -> Void = { count in
                shared.progressLock.lock()
                defer { shared.progressLock.unlock() }
                progress(count)
            }
            while !shared.stopped.load(ordering: .relaxed) {
                let index = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < objects.count else { return }
                do {
                    try move(transport, objects[index], session, serialized)
                } catch let failure as AssetTransferFailure {
                    shared.failures.withLock { $0[index] = failure }
                } catch {
                    // The first failure of the whole transfer wins; the others' (their
                    // requests stopped because of it) are dropped.
                    shared.wholeFailure.withLock { if $0 == nil { $0 = SendableError(error: error) } }
                    shared.stopped.store(true, ordering: .relaxed)
                    return
                }
            }
        }
    }
}
