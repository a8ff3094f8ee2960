import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `git daemon` on 127.0.0.1, serving the repositories in one folder over git://.
/// Started and stopped by the test; stopping and starting again keeps the same port.
public final class GitDaemon: @unchecked Sendable {
    // Mutable only from the test that owns it, one call at a time.
    private var process: ChildProcess?
    public let basePath: String
    public let port: Int

    public init(basePath: String) async throws {
        self.basePath = basePath
        (port, process) = try await onFreePorts { ports in (ports[0], try await Self.launch(basePath: basePath, port: ports[0])) }
    }

    deinit { stop() }

    /// The git:// URL of a repository in the base folder.
    public func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }

    /// Starts the daemon again on its port.
    public func start() async throws {
        process = try await Self.launch(basePath: basePath, port: port)
    }

    public func stop() {
        process?.stop()
        process = nil
    }

    /// Starts `git daemon` on 127.0.0.1:`port`; returns once it listens (it says "Ready to
    /// rumble"), or throws ``ServerDidNotStart``.
    private static func launch(basePath: String, port: Int) async throws -> ChildProcess {
        let execPath = try await git("--exec-path").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let process = try ChildProcess(
            execPath + "/git-daemon",
            [
                "--reuseaddr", "--export-all", "--enable=receive-pack", "--informative-errors", "--verbose",
                "--base-path=\(basePath)", "--listen=127.0.0.1", "--port=\(port)",
            ],
            logPath: basePath + "/git-daemon.log")
        try await waitForPort(port, process: process, saying: "Ready to rumble")
        return process
    }

    /// How many requests for `service` (`upload-pack`, `receive-pack`) the daemon has logged.
    public func requests(for service: String) -> Int {
        let log = (try? String(contentsOfFile: basePath + "/git-daemon.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.contains("Request \(service) for") }.count
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on right now.
public func freePort() throws -> Int {
    let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socketDescriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:port.
public func canConnect(port: Int) -> Bool {
    let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socketDescriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    return result == 0
}
