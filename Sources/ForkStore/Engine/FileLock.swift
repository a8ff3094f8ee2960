#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An OS advisory lock (`flock`) on a file in the git directory, shared by every process that
/// opens the store. The kernel drops it when its process dies, so a killed holder never blocks
/// the next one. The store has two: the writer lock, which serializes writers (while it is
/// held, any git `*.lock` file left behind is known stale), and the packing lock, which keeps
/// two processes from rolling up the same packs.
final class FileLock: Sendable {
    static let writerFileName = "forkstore.flock"
    static let packingFileName = "forkstore-packing.flock"
    private let descriptor: Int32
    let path: String

    init(gitDirectory: String, fileName: String) throws(StoreError) {
        path = gitDirectory.hasSuffix("/") ? gitDirectory + fileName : gitDirectory + "/" + fileName
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError.fileSystem(path: path, reason: String(cString: strerror(errno)))
        }
    }

    deinit {
        close(descriptor)
    }

    /// Runs `body` holding the lock, waiting for other processes' holders to finish first.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw StoreError.fileSystem(path: path, reason: String(cString: strerror(errno)))
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Runs `body` holding the lock if no one else holds it; returns false, without running
    /// it, when someone does.
    func ifFree(_ body: () -> Void) -> Bool {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        defer { flock(descriptor, LOCK_UN) }
        body()
        return true
    }
}
