import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a child process did, with what it cost: its wall time and its peak resident memory.
///
/// The peak is the child's `VmHWM` (its memory's high-water mark since `exec`), read every few
/// milliseconds while it runs. Not `ru_maxrss`: `posix_spawn` starts the child on the parent's
/// memory (`vfork`), and the kernel counts the parent's peak into the child's at `exec`.
public struct MeasuredRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var seconds: Double
    public var peakKB: Int
    /// The child was still running at the time limit and was killed.
    public var timedOut: Bool
}

extension MeasuredRun {
    /// Runs `executable` on a thread of its own (the cooperative pool stays free), killing it
    /// at `limit` seconds, so a child that never ends fails a test instead of hanging it.
    /// `environment` is added to the test process's own.
    public static func run(
        _ executable: String, _ arguments: [String], limit: Double, environment: [String: String] = [:]
    ) async throws -> MeasuredRun {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, limit: limit, environment: environment) })
            }
        }
    }

    private static func runBlocking(
        _ executable: String, _ arguments: [String], limit: Double, environment: [String: String]
    ) throws -> MeasuredRun {
        let folder = TemporaryFolder("measured-run")
        let (out, err) = (folder.child("stdout"), folder.child("stderr"))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let started = Date()
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        var status: Int32 = 0
        var timedOut = false
        var peakKB = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            peakKB = max(peakKB, highWaterMark(of: pid))
            if Date().timeIntervalSince(started) > limit {
                timedOut = true
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(2_000)
        }
        let seconds = Date().timeIntervalSince(started)
        let exited = status & 0x7f == 0
        return MeasuredRun(
            status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "",
            seconds: seconds, peakKB: peakKB, timedOut: timedOut)
    }
}

/// The `VmHWM` line of `/proc/PID/status`, in KB (0 once the process is gone).
private func highWaterMark(of pid: pid_t) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
}
