import Dispatch

extension StoreEngine {
    /// Runs `work` on a thread of ForkStore's own and returns its result: a store call awaited
    /// on the main actor never blocks it, nor a thread of Swift's cooperative pool.
    ///
    /// Each call gets a serial queue of its own, which libdispatch runs on its overcommitting
    /// pool: a thread is found for it however many other calls are blocked. A shared
    /// concurrent queue runs at most one job per core, so on two cores two writes waiting for
    /// a lock held up a read of an unrelated store for as long as they waited.
    package func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "ForkStore.blocking-work").async { continuation.resume(with: Result { try work() }) }
        }
    }
}
