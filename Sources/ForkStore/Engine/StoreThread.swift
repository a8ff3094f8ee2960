import Foundation
import Synchronization

/// The threads of ForkStore's own that run blocking store calls for `async` callers.
///
/// Each call gets a thread of its own. A shared concurrent queue runs one job per core: on two
/// cores, two writes waiting for a lock held up every other store's calls. A serial queue per
/// call waits for libdispatch's overcommit pool, which was slow to answer while many exchanges
/// held its threads (a read took 480 ms beside 64 syncs). A thread costs tens of microseconds;
/// a store call, more.
package enum StoreThread {
    /// Whether the task waiting for a call was cancelled: set by the task, read by the thread.
    private final class Cancellation: Sendable {
        let cancelled = Atomic<Bool>(false)
    }

    private static let cancellationKey = "dev.forkstore.cancellation"

    /// Runs `work` on a thread of its own and returns its result, so a store call awaited on
    /// the main actor never blocks it, nor a thread of Swift's cooperative pool, and no call
    /// waits for a thread another call holds. A task already cancelled throws
    /// `CancellationError` before anything runs; one cancelled while it runs is told through
    /// ``checkCancellation()``.
    package static func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    Thread.current.threadDictionary[cancellationKey] = cancellation
                    continuation.resume(with: Result { try work() })
                }
                thread.name = "ForkStore call"
                thread.start()
            }
        } onCancel: {
            cancellation.cancelled.store(true, ordering: .relaxed)
        }
    }

    /// Throws `CancellationError` when the task waiting for this thread's call was cancelled.
    /// Long calls (listings, imports, packing, history) ask between steps, where stopping
    /// leaves the store as it was or with whole steps written; on any other thread it never
    /// throws.
    package static func checkCancellation() throws {
        if let cancellation = Thread.current.threadDictionary[cancellationKey] as? Cancellation,
            cancellation.cancelled.load(ordering: .relaxed)
        {
            throw CancellationError()
        }
    }
}

/// Runs a blocking store call on a thread of ForkStore's own (see ``StoreThread``): what every
/// `async` twin awaits.
package func onStoreThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await StoreThread.perform(work)
}

/// A value an `async` twin took with `sending` and hands to the thread that runs the call: its
/// caller gave it up, so only that thread uses it until the call returns.
package struct Sent<Value>: @unchecked Sendable {
    package let value: Value

    package init(_ value: Value) { self.value = value }
}
