import ForkStoreGit
import Synchronization

/// The one owner of a store's libgit2 repository: every use goes through ``withRepository(_:)``,
/// which runs one closure at a time.
///
/// `@unchecked Sendable` because the compiler cannot see that the non-`Sendable` repository
/// never escapes the lock: it is private, handed only to closures that run while the lock is
/// held, and the closures are non-escaping. This is the serialization libgit2 requires
/// (one thread at a time per repository object).
final class SerializedRepository: @unchecked Sendable {
    private let repository: Repository
    private let lock = Mutex<Void>(())

    init(_ repository: Repository) {
        self.repository = repository
    }

    /// Runs `body` with exclusive use of the repository. Not reentrant: never call it from
    /// inside `body`.
    func withRepository<Result>(_ body: (Repository) throws -> Result) rethrows -> Result {
        try lock.withLock { _ in try body(repository) }
    }
}
