import Foundation

/// Runs blocking work (a wait on a lock, a child process) on a thread of its own and awaits
/// it, so it never holds one of Swift's cooperative threads, which the other suites need.
public func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
    }
}
