import Foundation

/// A value that one thread at a time reads or changes, through ``withLock(_:)``: the lock every
/// ForkStore module uses in place of the standard library's `Mutex` (swift-nio's
/// `NIOLockedValueBox` plays this part there).
///
/// Why not `Synchronization.Mutex`: on Linux it waits on a futex in code ThreadSanitizer does not
/// instrument, so TSan sees neither the lock nor the order it gives. Every pair of threads that
/// took turns under one then looked like a race (the store's session, LFS progress), and TSan
/// could check nothing such a lock guards. `NSLock` is a pthread mutex, which TSan intercepts.
/// A `Locked` is a class, allocated once per lock.
///
/// `@unchecked Sendable` because the value is reached only inside ``withLock(_:)``, while the
/// lock is held; `sending` keeps a non-`Sendable` value from escaping through the closure's
/// result, as `Mutex` does.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    package init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with the value while no other thread can reach it. Not reentrant: never call
    /// it from inside `body`.
    package func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
