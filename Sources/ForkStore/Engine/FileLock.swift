#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ForkStoreLocks

/// An OS advisory lock (`flock`) on a file in the git directory, shared by every process that
/// opens the store. The kernel drops it when its process dies, so a killed holder never blocks
/// the next one. The store has three: the writer lock, which serializes writers (its file also
/// holds the note of a ref move in progress, see ``note``), the packing lock, which keeps two
/// processes from rolling up the same packs, and the sync lock, which lets one sync at a time
/// use the transfer repository.
///
/// Only writers and syncs lock, so the file is opened (and made, if missing) on first use: a
/// process that only reads never touches it, and can read a store it cannot write.
final class FileLock: Sendable {
    static let writerFileName = "forkstore.flock"
    static let packingFileName = "forkstore-packing.flock"
    static let syncFileName = "forkstore-sync.flock"
    /// The open file, once a lock was asked for.
    private let descriptor = Locked<Int32?>(nil)
    let path: String
    /// The store's folder (the git directory), named when it turns out read-only.
    private let storePath: String

    init(gitDirectory: String, fileName: String) {
        storePath = gitDirectory.hasSuffix("/") ? String(gitDirectory.dropLast()) : gitDirectory
        path = gitDirectory.hasSuffix("/") ? gitDirectory + fileName : gitDirectory + "/" + fileName
    }

    deinit {
        descriptor.withLock { if let open = $0 { close(open) } }
    }

    /// The lock file, opened for writing: a process that may not write the git directory
    /// learns here, before it changes anything, that the store is read-only for it
    /// (``StoreError/readOnlyStore(path:)``).
    @discardableResult
    func opened() throws(StoreError) -> Int32 {
        try descriptor.withLock { (descriptor) throws(StoreError) -> Int32 in
            if let descriptor { return descriptor }
            let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard opened >= 0 else {
                let code = errno
                if code == EACCES || code == EPERM || code == EROFS {
                    throw StoreError.readOnlyStore(path: storePath, errno: code)
                }
                throw StoreError.fileSystem(path: path, errno: code)
            }
            descriptor = opened
            return opened
        }
    }

    /// Runs `body` holding the lock, waiting for other processes' holders to finish first.
    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        let descriptor = try opened()
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw StoreError.fileSystem(path: path, errno: errno)
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Runs `body` holding the lock, waiting at most `limit` for other holders to finish (in
    /// this process too, when it opened the file again); nil, without running it, when they
    /// kept it that long. `flock` has no timeout, so the wait polls, 5 to 50 ms apart.
    func withLock<Result>(waitingAtMost limit: Duration, _ body: () throws -> Result) throws -> Result? {
        let descriptor = try opened()
        let deadline = ContinuousClock.now + limit
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw StoreError.fileSystem(path: path, errno: errno)
            }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(UInt32.random(in: 5_000...50_000))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// What the last holder wrote into the file and did not clear ("" when nothing). A holder
    /// notes there what it must finish, so a note found on taking the lock was left by a
    /// holder that died first. Call it holding the lock.
    var note: String {
        guard let descriptor = try? opened() else { return "" }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        return count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : ""
    }

    /// Replaces the note (empty clears it). Call it holding the lock.
    func setNote(_ text: String) throws(StoreError) {
        let bytes = Array(text.utf8), descriptor = try opened()
        guard ftruncate(descriptor, 0) == 0, bytes.isEmpty || pwrite(descriptor, bytes, bytes.count, 0) == bytes.count else {
            throw StoreError.fileSystem(path: path, errno: errno)
        }
    }

    /// Runs `body` holding the lock if no one else holds it; returns false, without running
    /// it, when someone does.
    func ifFree(_ body: () -> Void) -> Bool {
        guard let descriptor = try? opened(), flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        defer { flock(descriptor, LOCK_UN) }
        body()
        return true
    }
}
