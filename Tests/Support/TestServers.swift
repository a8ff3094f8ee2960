import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `git http-backend` behind a real lighttpd on 127.0.0.1: `/git/` anonymous (push enabled
/// per repository), `/auth/` behind basic authentication; with `tls`, the same over https on a
/// second port, with a self-signed certificate made for the server (lighttpd's mod_openssl).
public final class SmartHTTPServer: Sendable {
    public let port: Int
    /// The https port, when the server was started with TLS.
    public let tlsPort: Int?
    public let process: ChildProcess
    public static let username = "tester"
    public static let password = "s3cret-Pa55"

    public init(repositories: String, folder: String, tls: Bool = false) async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (htpasswd, key, certificate) = try await FrontSecrets.make(
            in: folder, username: Self.username, password: Self.password, tls: tls)
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        let backend = try await git("--exec-path").stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/git-http-backend"
        (port, tlsPort, process) = try await onFreePorts(tls ? 2 : 1) { ports in
            let process = try await Self.startLighttpd(
                folder: folder, repositories: repositories, htpasswd: htpasswd, backend: backend, port: ports[0],
                tls: tls ? (ports[1], key, certificate) : nil)
            return (ports[0], tls ? ports[1] : nil, process)
        }
    }

    /// Starts lighttpd on 127.0.0.1:`port` (and `tls.port` for https), its config and logs in
    /// `folder`; returns once it serves, or throws ``ServerDidNotStart``.
    private static func startLighttpd(
        folder: String, repositories: String, htpasswd: String, backend: String, port: Int,
        tls: (port: Int, key: String, certificate: String)?
    ) async throws -> ChildProcess {
        var secure = ""
        if let (tlsPort, key, certificate) = tls {
            secure = """
                server.modules += ( "mod_openssl" )
                $SERVER["socket"] == "127.0.0.1:\(tlsPort)" {
                    ssl.engine = "enable"
                    ssl.pemfile = "\(certificate)"
                    ssl.privkey = "\(key)"
                }
                """
        }
        let config = """
            server.document-root = "\(folder)/www"
            server.bind = "127.0.0.1"
            server.port = \(port)
            server.errorlog = "\(folder)/lighttpd-error.log"
            server.modules = ( "mod_auth", "mod_authn_file", "mod_alias", "mod_setenv", "mod_cgi" )
            setenv.add-environment = ( "GIT_PROJECT_ROOT" => "\(repositories)", "GIT_HTTP_EXPORT_ALL" => "" )
            auth.backend = "htpasswd"
            auth.backend.htpasswd.userfile = "\(htpasswd)"
            $HTTP["url"] =~ "^/git/" { alias.url = ( "/git" => "\(backend)" ) cgi.assign = ( "" => "" ) }
            $HTTP["url"] =~ "^/auth/" { alias.url = ( "/auth" => "\(backend)" ) cgi.assign = ( "" => "" )
                auth.require = ( "" => ( "method" => "basic", "realm" => "git", "require" => "valid-user" ) ) }
            \(secure)

            """
        let configPath = folder + "/lighttpd.conf"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: folder + "/lighttpd-error.log")
        let process = try ChildProcess("/usr/sbin/lighttpd", ["-D", "-f", configPath], logPath: folder + "/lighttpd.log")
        for listening in [port] + (tls.map { [$0.port] } ?? []) {
            try await waitForPort(listening, process: process, saying: "server started", in: folder + "/lighttpd-error.log")
        }
        return process
    }

    /// Whether lighttpd can serve https here (its mod_openssl is installed).
    public static var canServeTLS: Bool {
        FileManager.default.fileExists(atPath: "/usr/sbin/lighttpd")
            && FileManager.default.fileExists(atPath: "/usr/lib/lighttpd/mod_openssl.so")
    }

    public func url(_ path: String, authenticated: Bool = false) -> String {
        "http://127.0.0.1:\(port)/\(authenticated ? "auth" : "git")/\(path)"
    }

    /// The https URL of a repository; nil when the server has no TLS port.
    public func secureURL(_ path: String, authenticated: Bool = false) -> String? {
        tlsPort.map { "https://127.0.0.1:\($0)/\(authenticated ? "auth" : "git")/\(path)" }
    }
}

/// A real sshd on 127.0.0.1 with a fresh host key and one authorized client key.
public final class SSHServer: Sendable {
    public let port: Int
    public let process: ChildProcess
    public let clientKey: String
    public let otherKey: String
    public let hostKeyFingerprint: String
    public let user: String

    public init(folder: String) async throws {
        let hostKey = folder + "/host_ed25519_key"
        clientKey = folder + "/id_ed25519"
        otherKey = folder + "/unauthorized_ed25519"
        for key in [hostKey, clientKey, otherKey] {
            try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key])
        }
        try FileManager.default.copyItem(atPath: clientKey + ".pub", toPath: folder + "/authorized_keys")
        hostKeyFingerprint = try await Self.fingerprint(ofPublicKey: hostKey + ".pub")
        user = Self.currentUser
        (port, process) = try await onFreePorts { ports in
            (ports[0], try await Self.startSSHD(folder: folder, hostKey: hostKey, authorizedKeys: folder + "/authorized_keys", port: ports[0]))
        }
    }

    /// The user the tests run as, whom sshd lets in.
    public static var currentUser: String { String(cString: getpwuid(getuid()).pointee.pw_name) }

    /// The SHA256 fingerprint of a public key file, as `ssh-keygen -l` prints it.
    public static func fingerprint(ofPublicKey path: String) async throws -> String {
        String(try await run("/usr/bin/ssh-keygen", ["-lf", path]).stdout.split(separator: " ")[1])
    }

    /// Starts sshd on 127.0.0.1:`port` with keys only (no passwords, no PAM), its config, pid
    /// file and log in `folder`; `extraConfig` lines are added to its config.
    public static func startSSHD(
        folder: String, hostKey: String, authorizedKeys: String, port: Int, extraConfig: String = ""
    ) async throws -> ChildProcess {
        let config = """
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile \(folder)/sshd.pid
            AuthorizedKeysFile \(authorizedKeys)
            PermitRootLogin prohibit-password
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no
            \(extraConfig)

            """
        try config.write(toFile: folder + "/sshd_config", atomically: true, encoding: .utf8)
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let process = try ChildProcess(
            "/usr/sbin/sshd", ["-D", "-e", "-f", folder + "/sshd_config", "-p", String(port)], logPath: folder + "/sshd.log")
        try await waitForPort(port, process: process, saying: "Server listening on 127.0.0.1 port \(port)")
        return process
    }

    public func url(_ absolutePath: String) -> String {
        "ssh://\(user)@127.0.0.1:\(port)\(absolutePath)"
    }
}

public struct ServerDidNotStart: Error, CustomStringConvertible {
    public let log: String
    public init(log: String) { self.log = log }
    public var description: String { "the test server did not start: \(log)" }
}

/// Starts a server on `count` free ports: `start` gets the ports and returns once the server
/// listens on them, or throws ``ServerDidNotStart``. A free port can be taken by another test
/// before the server binds it: the server then says "Address already in use" and exits, and
/// other ports are tried, three times in all.
public func onFreePorts<Server>(_ count: Int = 1, _ start: ([Int]) async throws -> Server) async throws -> Server {
    var attempt = 1
    while true {
        do {
            return try await start(try (0..<count).map { _ in try freePort() })
        } catch let error as ServerDidNotStart where attempt < 3 && error.log.contains("Address already in use") {
            attempt += 1
        }
    }
}

/// Waits until the process listens on the port: something accepts connections there and,
/// given `ready`, the process has said so in `logFile` (its own log by default), since a port
/// another process took accepts connections too. Throws ``ServerDidNotStart`` with the
/// process's log once it has died, or after 10 s.
public func waitForPort(_ port: Int, process: ChildProcess, saying ready: String? = nil, in logFile: String? = nil) async throws {
    let deadline = Date().addingTimeInterval(10)
    func said() -> Bool {
        guard let ready else { return true }
        let log = logFile.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" } ?? process.log
        return log.contains(ready)
    }
    while Date() < deadline {
        if said(), canConnect(port: port) { return }
        guard process.isRunning else { break }
        try await Task.sleep(for: .milliseconds(20))
    }
    // Once more: a wait for a cooperative thread may have outlasted the deadline.
    if said(), canConnect(port: port) { return }
    throw ServerDidNotStart(log: process.log)
}

/// What lighttpd in front of a test server needs: a basic-authentication password file for
/// one user, and with `tls` a fresh self-signed certificate for localhost and 127.0.0.1.
enum FrontSecrets {
    static func make(in folder: String, username: String, password: String, tls: Bool) async throws -> (
        htpasswd: String, key: String, certificate: String
    ) {
        let htpasswd = folder + "/htpasswd"
        let hash = try await run("/usr/bin/openssl", ["passwd", "-apr1", password]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try "\(username):\(hash)\n".write(toFile: htpasswd, atomically: true, encoding: .utf8)
        let key = folder + "/server.key", certificate = folder + "/server.crt"
        if tls {
            try await run("/usr/bin/openssl", [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-keyout", key, "-out", certificate, "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        }
        return (htpasswd, key, certificate)
    }
}
