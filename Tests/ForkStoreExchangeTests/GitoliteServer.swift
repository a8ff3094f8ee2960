import Foundation
import ForkStoreExchange
import ForkStoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// gitolite (Debian's gitolite3) behind a real sshd on 127.0.0.1: one ssh key per user, and a
/// repository `notes` that `alice` may read and write and `bob` may only read.
final class GitoliteServer: Sendable {
    let port: Int
    let process: ChildProcess
    let hostKeyFingerprint: String
    let user: String
    let folder: String

    init(folder: String) async throws {
        self.folder = folder
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        for key in ["host", "admin", "alice", "bob"] {
            try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", folder + "/" + key])
        }
        let environment = ["HOME": home]
        let setup = try await run("/usr/bin/gitolite", ["setup", "-pk", folder + "/admin.pub"], environment: environment)
        guard setup.status == 0 else { throw ServerDidNotStart(log: setup.stderr) }
        for user in ["alice", "bob"] {
            try FileManager.default.copyItem(atPath: folder + "/\(user).pub", toPath: home + "/.gitolite/keydir/\(user).pub")
        }
        let rules = "\nrepo notes\n    RW+ = alice\n    R   = bob\n"
        let conf = home + "/.gitolite/conf/gitolite.conf"
        try (try String(contentsOfFile: conf, encoding: .utf8) + rules).write(toFile: conf, atomically: true, encoding: .utf8)
        let compiled = try await run("/usr/bin/gitolite", ["setup"], environment: environment)
        guard compiled.status == 0 else { throw ServerDidNotStart(log: compiled.stderr) }
        hostKeyFingerprint = try await SSHServer.fingerprint(ofPublicKey: folder + "/host.pub")
        user = SSHServer.currentUser
        (port, process) = try await onFreePorts { ports in
            (ports[0], try await SSHServer.startSSHD(
                folder: folder, hostKey: folder + "/host", authorizedKeys: home + "/.ssh/authorized_keys", port: ports[0],
                extraConfig: "SetEnv HOME=\(home)"))
        }
    }

    /// The `notes` repository's URL, and the credentials of `name`'s key.
    func remote(as name: String) throws -> Remote {
        try Remote(
            "ssh://\(user)@127.0.0.1:\(port)/notes",
            credentials: .sshKey(username: user, privateKey: folder + "/" + name, publicKey: folder + "/\(name).pub"),
            trust: .pinnedHostKey(fingerprint: hostKeyFingerprint))
    }
}
