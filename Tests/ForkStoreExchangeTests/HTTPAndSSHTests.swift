import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Exchange over smart HTTP (lighttpd + git http-backend) and ssh (sshd)")
struct HTTPAndSSHTests {
    @Test func replicasConvergeOverAnonymousHTTP() async throws {
        let lab = try await SyncLab()
        try await git("--git-dir", lab.remotePath, "config", "http.receivepack", "true")
        let server = try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("http"))
        try await lab.expectTwoReplicasConverge(through: Remote(server.url("remote.git")))
    }

    @Test func basicAuthenticationWithTheRightAndTheWrongPassword() async throws {
        let lab = try await SyncLab()
        let server = try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("http"))
        let store = try await Store<Tally>.create(at: lab.folder.child("one"))
        try store.add("private")
        let good = Exchange(store: store, remote: try Remote(
            server.url("remote.git", authenticated: true),
            credentials: .userPassword(username: SmartHTTPServer.username, password: SmartHTTPServer.password)))
        try await good.sync()
        #expect(try await lab.remoteItems() == ["private"])

        let wrong = "not-the-password-7731"
        let bad = Exchange(store: store, remote: try Remote(
            server.url("remote.git", authenticated: true),
            credentials: .userPassword(username: SmartHTTPServer.username, password: wrong)))
        try store.add("more")
        let refused = await expectSync(bad, failsWith: .authenticationFailed)
        #expect(refused.map { !$0.localizedDescription.contains(wrong) && !"\($0)".contains(wrong) } == true)
        #expect(bad.status.state == .failed)
        // No credentials at all: also an authentication failure, not a hang.
        let anonymous = Exchange(store: store, remote: try Remote(server.url("remote.git", authenticated: true)))
        await #expect(throws: ExchangeError.self) { try await anonymous.sync() }
        // Nothing of the credentials reached the store's config.
        let config = try String(contentsOfFile: store.path + "/config", encoding: .utf8)
        #expect(!config.contains(SmartHTTPServer.password) && !config.contains(wrong))
    }

    /// https through lighttpd's TLS with a self-signed certificate: refused as untrusted by
    /// default, and with the server accepted (tests only), replicas converge with basic
    /// authentication and the password reaches nothing on disk.
    @Test func httpsRefusesAnUntrustedCertificateAndSyncsWhenTheServerIsAccepted() async throws {
        let lab = try await SyncLab()
        let server = try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("https"), tls: true)
        let url = try #require(server.secureURL("remote.git", authenticated: true))
        let credentials = Credentials.userPassword(username: SmartHTTPServer.username, password: SmartHTTPServer.password)
        let (store, verifying) = try lab.replica("verifying", remote: try Remote(url, credentials: credentials))
        try store.add("kept local")
        await expectSync(verifying, failsWith: .serverNotTrusted)
        #expect(try await lab.remoteItems().isEmpty)

        try await lab.expectTwoReplicasConverge(through: Remote(url, credentials: credentials, trust: .acceptAnyServer))
        for name in try FileManager.default.contentsOfDirectory(atPath: lab.folder.path) where !name.hasPrefix("https") {
            let config = lab.folder.child(name) + "/config"
            guard let text = try? String(contentsOfFile: config, encoding: .utf8) else { continue }
            #expect(!text.contains(SmartHTTPServer.password), "\(config)")
        }
    }

    @Test func aMissingRepositoryOverHTTPIsNotARepository() async throws {
        let lab = try await SyncLab()
        let server = try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("http"))
        let (_, exchange) = try lab.replica("one", url: server.url("missing.git"))
        await expectSync(exchange, failsWith: .notARepository)
    }

    @Test func replicasConvergeOverSSHWithAPinnedHostKey() async throws {
        let lab = try await SyncLab()
        let server = try await SSHServer(folder: lab.folder.child("ssh-\(UUID().uuidString.prefix(4))").creatingFolder())
        let credentials = Credentials.sshKey(username: server.user, privateKey: server.clientKey, publicKey: server.clientKey + ".pub")
        let remote = try Remote(server.url(lab.remotePath), credentials: credentials, trust: .pinnedHostKey(fingerprint: server.hostKeyFingerprint))
        try await lab.expectTwoReplicasConverge(through: remote)
    }

    @Test func sshRejectsAnUnknownHostKeyAndAnUnauthorizedKey() async throws {
        let lab = try await SyncLab()
        let server = try await SSHServer(folder: lab.folder.child("ssh-\(UUID().uuidString.prefix(4))").creatingFolder())
        let store = try await Store<Tally>.create(at: lab.folder.child("one"))
        try store.add("x")
        let key = Credentials.sshKey(username: server.user, privateKey: server.clientKey, publicKey: server.clientKey + ".pub")
        let wrongPin = Exchange(store: store, remote: try Remote(
            server.url(lab.remotePath), credentials: key,
            trust: .pinnedHostKey(fingerprint: "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")))
        await expectSync(wrongPin, failsWith: .serverNotTrusted)
        let unauthorized = Exchange(store: store, remote: try Remote(
            server.url(lab.remotePath),
            credentials: .sshKey(username: server.user, privateKey: server.otherKey, publicKey: server.otherKey + ".pub"),
            trust: .pinnedHostKey(fingerprint: server.hostKeyFingerprint)))
        await expectSync(unauthorized, failsWith: .authenticationFailed)
        #expect(try await lab.remoteItems().isEmpty)
    }
}

extension String {
    /// Creates the folder at this path and returns the path.
    func creatingFolder() throws -> String {
        try FileManager.default.createDirectory(atPath: self, withIntermediateDirectories: true)
        return self
    }
}
