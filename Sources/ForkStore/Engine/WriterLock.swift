#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An OS advisory lock (`flock`) on a file in the git directory that serializes writers
/// across processes. The kernel drops it when its process dies, so a killed writer never
/// blocks the next one; while it is held, any git `*.lock` file left behind is known stale.
final class WriterLock: Sendable {
    static let fileName = "forkstore.flock"
    private let descriptor: Int32
    let path: String

    init(gitDirectory: String) throws(StoreError) {
        path = gitDirectory.hasSuffix("/") ? gitDirectory + Self.fileName : gitDirectory + "/" + Self.fileName
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError.fileSystem(path: path, reason: String(cString: strerror(errno)))
        }
    }

    deinit {
        close(descriptor)
    }

    /// Runs `body` holding the lock, waiting for other processes' writers to finish first.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw StoreError.fileSystem(path: path, reason: String(cString: strerror(errno)))
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
