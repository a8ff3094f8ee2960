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
    /// A pthread mutex, which ThreadSanitizer sees (see `Locked`, whose `sending` result would
    /// not let a session's non-`Sendable` results out).
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
