import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-running child process (a test server), started with `posix_spawn` and stopped with
/// a signal and `waitpid`, so it can be stopped from any thread. (Foundation's `Process` can
/// hang in `waitUntilExit` when called from a thread other than the one that started it.)
public final class ChildProcess: @unchecked Sendable {
    // Written once at start; `stop` is idempotent and guarded by the lock.
    private var pid: pid_t = 0
    private let lock = NSLock()
    public let logPath: String

    /// Starts `executable` with `arguments`; standard output and error go to `logPath`.
    public init(_ executable: String, _ arguments: [String], logPath: String) throws {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The child starts with no signal blocked and every signal at its default: the
        // thread spawning it may block signals (a Dispatch worker blocks nearly all), and a
        // server that inherits a blocked SIGCHLD never reaps its own children (lighttpd's
        // CGI processes then pile up as zombies, thousands in a soak, toward pid_max).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        pid = child
    }

    deinit { stop() }

    /// Whether the process is still running.
    public var isRunning: Bool {
        lock.withLock { pid != 0 && kill(pid, 0) == 0 }
    }

    /// Sends SIGTERM (then SIGKILL after a grace period) and reaps the process.
    public func stop() {
        lock.withLock {
            guard pid != 0 else { return }
            kill(pid, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<200 {
                if waitpid(pid, &status, WNOHANG) == pid {
                    pid = 0
                    return
                }
                usleep(10_000)
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            pid = 0
        }
    }

    /// What the process has written so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }
}
