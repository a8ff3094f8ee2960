import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs commands as a user who cannot write a folder made read-only with `chmod -R a-w`. Root
/// ignores file permissions, so under root (as in CI) the command runs as `nobody` (65534)
/// through `setpriv`: the kernel drops root's capabilities with the user id.
public enum ReadOnlyUser {
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether a read-only folder can be tested here: not root, or root with a `setpriv` that
    /// can switch to `nobody` (a container may forbid it).
    public static let isAvailable: Bool = {
        guard geteuid() == 0 else { return true }
        let (executable, arguments) = command("/bin/true", [])
        return setpriv != nil && (try? runBlocking(executable, arguments))?.status == 0
    }()

    /// The executable and arguments that run `command` as that user. Its home is nobody's
    /// (`/nonexistent`), not root's: libgit2 1.8 stats `$HOME/.gitconfig` on open and fails
    /// when it may not (root's home is closed to others).
    public static func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard geteuid() == 0, let setpriv else { return (executable, arguments) }
        let environment = ["/usr/bin/env", "-u", "XDG_CONFIG_HOME", "HOME=/nonexistent"]
        return (setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups"] + environment + [executable] + arguments)
    }

    /// Makes `path` and everything in it read-only for everyone (`chmod -R a-w`).
    public static func makeReadOnly(_ path: String) throws {
        try changeModes(under: path) { $0 & ~(S_IWUSR | S_IWGRP | S_IWOTH) }
    }

    /// Gives the owner write access back, so the temporary folder can be removed.
    public static func makeWritable(_ path: String) throws {
        try changeModes(under: path) { $0 | S_IWUSR }
    }

    /// `chmod -R` through system calls: no child process to wait for on a test's thread.
    private static func changeModes(under path: String, _ change: (mode_t) -> mode_t) throws {
        let below = FileManager.default.enumerator(atPath: path).map { $0.compactMap { $0 as? String } } ?? []
        for file in [path] + below.map({ path + "/" + $0 }) {
            var status = stat()
            guard lstat(file, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            guard status.st_mode & S_IFMT != S_IFLNK else { continue }
            guard chmod(file, change(status.st_mode & 0o7777)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
        }
    }
}
