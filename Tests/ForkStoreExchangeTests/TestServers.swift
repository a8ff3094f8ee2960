import Foundation
import ForkStoreExchange
import ForkStoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `git http-backend` behind a real lighttpd on 127.0.0.1: `/git/` anonymous (push enabled
/// per repository), `/auth/` behind basic authentication.
final class SmartHTTPServer: Sendable {
    let port: Int
    let process: ChildProcess
    static let username = "tester"
    static let password = "s3cret-Pa55"

    init(repositories: String, folder: String) throws {
        port = try freePort()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let htpasswd = folder + "/htpasswd"
        let hash = try run("/usr/bin/openssl", ["passwd", "-apr1", Self.password]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try "\(Self.username):\(hash)\n".write(toFile: htpasswd, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        let backend = try git("--exec-path").stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/git-http-backend"
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

            """
        let configPath = folder + "/lighttpd.conf"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        process = try ChildProcess("/usr/sbin/lighttpd", ["-D", "-f", configPath], logPath: folder + "/lighttpd.log")
        try waitForPort(port, process: process)
    }

    func url(_ path: String, authenticated: Bool = false) -> String {
        "http://127.0.0.1:\(port)/\(authenticated ? "auth" : "git")/\(path)"
    }
}

/// A real sshd on 127.0.0.1 with a fresh host key and one authorized client key.
final class SSHServer: Sendable {
    let port: Int
    let process: ChildProcess
    let clientKey: String
    let otherKey: String
    let hostKeyFingerprint: String
    let user: String

    init(folder: String) throws {
        port = try freePort()
        let hostKey = folder + "/host_ed25519_key"
        clientKey = folder + "/id_ed25519"
        otherKey = folder + "/unauthorized_ed25519"
        for key in [hostKey, clientKey, otherKey] {
            try run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key])
        }
        try FileManager.default.copyItem(atPath: clientKey + ".pub", toPath: folder + "/authorized_keys")
        let fingerprint = try run("/usr/bin/ssh-keygen", ["-lf", hostKey + ".pub"]).stdout
        hostKeyFingerprint = String(fingerprint.split(separator: " ")[1])
        user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let config = """
            ListenAddress 127.0.0.1
            HostKey \(hostKey)
            PidFile \(folder)/sshd.pid
            AuthorizedKeysFile \(folder)/authorized_keys
            PermitRootLogin prohibit-password
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no

            """
        try config.write(toFile: folder + "/sshd_config", atomically: true, encoding: .utf8)
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        process = try ChildProcess(
            "/usr/sbin/sshd", ["-D", "-e", "-f", folder + "/sshd_config", "-p", String(port)],
            logPath: folder + "/sshd.log")
        try waitForPort(port, process: process)
    }

    func url(_ absolutePath: String) -> String {
        "ssh://\(user)@127.0.0.1:\(port)\(absolutePath)"
    }
}

struct ServerDidNotStart: Error, CustomStringConvertible {
    let log: String
    var description: String { "the test server did not start: \(log)" }
}

/// Waits until something accepts connections on the port, or the process has died.
func waitForPort(_ port: Int, process: ChildProcess) throws {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        if canConnect(port: port) { return }
        guard process.isRunning else { break }
        usleep(20_000)
    }
    throw ServerDidNotStart(log: process.log)
}

/// gitolite (Debian's gitolite3) behind a real sshd on 127.0.0.1: one ssh key per user, and a
/// repository `notes` that `alice` may read and write and `bob` may only read.
final class GitoliteServer: Sendable {
    let port: Int
    let process: ChildProcess
    let hostKeyFingerprint: String
    let user: String
    let folder: String

    init(folder: String) throws {
        self.folder = folder
        port = try freePort()
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        for key in ["host", "admin", "alice", "bob"] {
            try run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", folder + "/" + key])
        }
        let environment = ["HOME": home]
        let setup = try run("/usr/bin/gitolite", ["setup", "-pk", folder + "/admin.pub"], environment: environment)
        guard setup.status == 0 else { throw ServerDidNotStart(log: setup.stderr) }
        for user in ["alice", "bob"] {
            try FileManager.default.copyItem(atPath: folder + "/\(user).pub", toPath: home + "/.gitolite/keydir/\(user).pub")
        }
        let rules = "\nrepo notes\n    RW+ = alice\n    R   = bob\n"
        let conf = home + "/.gitolite/conf/gitolite.conf"
        try (try String(contentsOfFile: conf, encoding: .utf8) + rules).write(toFile: conf, atomically: true, encoding: .utf8)
        let compiled = try run("/usr/bin/gitolite", ["setup"], environment: environment)
        guard compiled.status == 0 else { throw ServerDidNotStart(log: compiled.stderr) }
        let fingerprint = try run("/usr/bin/ssh-keygen", ["-lf", folder + "/host.pub"]).stdout
        hostKeyFingerprint = String(fingerprint.split(separator: " ")[1])
        user = String(cString: getpwuid(getuid()).pointee.pw_name)
        let config = """
            ListenAddress 127.0.0.1
            HostKey \(folder)/host
            PidFile \(folder)/sshd.pid
            AuthorizedKeysFile \(home)/.ssh/authorized_keys
            PermitRootLogin prohibit-password
            PubkeyAuthentication yes
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no
            SetEnv HOME=\(home)

            """
        try config.write(toFile: folder + "/sshd_config", atomically: true, encoding: .utf8)
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        process = try ChildProcess(
            "/usr/sbin/sshd", ["-D", "-e", "-f", folder + "/sshd_config", "-p", String(port)], logPath: folder + "/sshd.log")
        try waitForPort(port, process: process)
    }

    /// The `notes` repository's URL, and the credentials of `name`'s key.
    func remote(as name: String) throws -> Remote {
        try Remote(
            "ssh://\(user)@127.0.0.1:\(port)/notes",
            credentials: .sshKey(username: user, privateKey: folder + "/" + name, publicKey: folder + "/\(name).pub"),
            trust: .pinnedHostKey(fingerprint: hostKeyFingerprint))
    }
}
