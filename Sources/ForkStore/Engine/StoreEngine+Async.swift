import Dispatch

extension StoreEngine {
    /// Where the `async` variants run their blocking work: threads of ForkStore's own, so a
    /// store call awaited on the main actor never blocks it, nor a thread of Swift's
    /// cooperative pool.
    private static let blockingWork = DispatchQueue(label: "ForkStore.blocking-work", attributes: .concurrent)

    /// Runs `work` on one of ForkStore's own threads and returns its result.
    package func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Self.blockingWork.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
