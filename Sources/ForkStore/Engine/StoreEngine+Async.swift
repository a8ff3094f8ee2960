import Foundation

extension StoreEngine {
    /// Runs `work` on a thread of its own and returns its result: a store call awaited on the
    /// main actor never blocks it, nor a thread of Swift's cooperative pool, and no call waits
    /// for a thread another call holds.
    ///
    /// A shared concurrent queue runs one job per core: on two cores, two writes waiting for a
    /// lock held up every other store's calls. A serial queue per call waits for libdispatch's
    /// overcommit pool, which was slow to answer while many exchanges held its threads (a read
    /// took 480 ms beside 64 syncs). A thread costs tens of microseconds; a store call, more.
    package func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
