import Foundation

/// The one owner of a store's ``StoreSession``: every use goes through ``withSession(_:)``,
/// which runs one closure at a time (GRDB's `SerializedDatabase` plays this part).
///
/// `@unchecked Sendable` because the compiler cannot see that the non-`Sendable` session never
/// escapes the lock: it is private, handed only to non-escaping closures that run while the
/// lock is held. This is the serialization libgit2 requires (one thread at a time per
/// repository object).
final class SerializedSession: @unchecked Sendable {
    private let session: StoreSession
    /// A pthread mutex, which ThreadSanitizer sees, rather than `Synchronization.Mutex`, whose
    /// futex it does not: TSan then reported every pair of listing threads that took turns
    /// with the session as a race, and could not check what this lock guards.
    private let lock = NSLock()

    init(_ session: StoreSession) {
        self.session = session
    }

    /// Runs `body` with exclusive use of the session. Not reentrant: never call it from
    /// inside `body`.
    func withSession<Result>(_ body: (StoreSession) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        session.repository.forgetRemovedPacks()
        return try body(session)
    }
}
