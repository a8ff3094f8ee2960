import Foundation

/// A real Git LFS server on 127.0.0.1: giftless (PyPI) with its local storage backend, behind
/// waitress (a WSGI server), from the virtual environment `scripts/setup.sh --test-servers`
/// makes at `.venv-giftless/` (or `FORKSTORE_GIFTLESS_VENV`).
///
/// - Anonymous (the default): giftless on its own port, read and write for anyone; its batch
///   answers carry short-lived `Authorization: Bearer …` headers (JWT) in upload and verify
///   actions and a `?jwt=…` query in download hrefs, as a hosted server's do.
/// - `authenticated`: lighttpd in front (mod_auth, basic, ``username``/``password``, for every
///   path), proxying to giftless, which then hands out no tokens: its actions carry no
///   headers, so a client must send its own credentials to the hrefs, which have the
///   endpoint's origin. giftless lets every request lighttpd passes on do anything (a small
///   provider of its own, `forkstore_behind_proxy`: giftless 0.6.2's anonymous identity
///   without tokens is refused every object, a bug of its permission lookup).
/// - `tls`: lighttpd also serves https on a second port with a fresh self-signed certificate
///   (with `authenticated`, behind the same basic authentication).
///
/// The endpoint of a repository is `http://127.0.0.1:PORT/ORG/REPO` (giftless's "legacy"
/// endpoints, which `git lfs` reaches through `lfs.url`). Objects land in ``storage`` as
/// `ORG/REPO/<oid>`.
public final class GiftlessServer: Sendable {
    /// giftless's own port.
    public let port: Int
    /// lighttpd's http port, when it is in front.
    public let frontPort: Int?
    /// lighttpd's https port, when started with `tls`.
    public let tlsPort: Int?
    /// Where giftless keeps objects.
    public let storage: String
    public let giftless: ChildProcess
    public let front: ChildProcess?
    public let authenticated: Bool
    public static let username = "tester"
    public static let password = "s3cret-LFS-Pa55"

    /// `tokenLifetime`: how many seconds the tokens of anonymous actions last (giftless's
    /// default is 70: 60 and 10 of leeway), while their `expires_in` still says 900: a server
    /// whose actions run out before it says they do.
    ///
    /// `blockDownloads`: serve downloads in blocks of 1 MiB. giftless hands its WSGI server the
    /// open file, which is iterated line by line: random bytes go out as chunks of a few
    /// hundred bytes each, at about 14 MB/s. Stock giftless (the default) keeps those small
    /// chunks in front of the client; a test that moves a gigabyte, or a benchmark of the
    /// client, asks for blocks (a patch of giftless's local storage, `forkstore_blocks.py`).
    public init(
        folder: String, authenticated: Bool = false, tls: Bool = false, tokenLifetime: Int? = nil,
        blockDownloads: Bool = false
    ) async throws {
        let python = try Self.requireEnvironment()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        storage = folder + "/lfs-objects"
        self.authenticated = authenticated
        try Self.behindProxyProvider.write(toFile: folder + "/forkstore_behind_proxy.py", atomically: true, encoding: .utf8)
        if blockDownloads {
            let module = folder + "/forkstore_blocks.py"
            try Self.blockReads.write(toFile: module, atomically: true, encoding: .utf8)
        }
        let config = """
            TRANSFER_ADAPTERS:
              basic:
                factory: giftless.transfer.basic_streaming:factory
                options:
                  storage_class: giftless.storage.local_storage:LocalStorage
                  storage_options: {path: \(storage)}
            AUTH_PROVIDERS:
              - \(authenticated ? "forkstore_behind_proxy:anyone" : "giftless.auth.allow_anon:read_write")
            \(authenticated ? "PRE_AUTHORIZED_ACTION_PROVIDER: null" : "")
            \(!authenticated && tokenLifetime != nil ? """
            PRE_AUTHORIZED_ACTION_PROVIDER:
              factory: giftless.auth.jwt:factory
              options: {algorithm: HS256, private_key: forkstore-test-key, default_lifetime: \((tokenLifetime ?? 70) - 10), key_id: giftless-internal-jwt-key}
            """ : "")

            """
        try config.write(toFile: folder + "/giftless.yaml", atomically: true, encoding: .utf8)
        let behindProxy = authenticated || tls
        (port, giftless) = try await onFreePorts { ports in
            let arguments = [
                "GIFTLESS_CONFIG_FILE=\(folder)/giftless.yaml", "PYTHONWARNINGS=ignore", "PYTHONPATH=\(folder)",
                python + "/waitress-serve", "--listen=127.0.0.1:\(ports[0])", "--threads=8",
                "--max-request-body-size=\(1 << 34)",
            ] + (behindProxy ? ["--trusted-proxy=127.0.0.1", "--trusted-proxy-headers=forwarded", "--clear-untrusted-proxy-headers"] : [])
                + [blockDownloads ? "forkstore_blocks:app" : "giftless.wsgi_entrypoint:app"]
            let process = try ChildProcess("/usr/bin/env", arguments, logPath: folder + "/giftless.log")
            try await waitForPort(ports[0], process: process, saying: "Serving on")
            return (ports[0], process)
        }
        guard behindProxy else {
            (frontPort, tlsPort, front) = (nil, nil, nil)
            return
        }
        let backend = port
        let (htpasswd, key, certificate) = try await FrontSecrets.make(
            in: folder, username: Self.username, password: Self.password, tls: tls)
        (frontPort, tlsPort, front) = try await onFreePorts(tls ? 2 : 1) { ports in
            let process = try await Self.startFront(
                folder: folder, backend: backend, htpasswd: htpasswd, authenticated: authenticated, port: ports[0],
                tls: tls ? (ports[1], key, certificate) : nil)
            return (ports[0], tls ? ports[1] : nil, process)
        }
    }

    /// Starts lighttpd in front of giftless: basic authentication on every path when
    /// `authenticated`, request and response bodies streamed through (not buffered whole),
    /// the scheme and host passed on in `Forwarded` (waitress trusts it from 127.0.0.1, so
    /// giftless's hrefs name the front's origin).
    private static func startFront(
        folder: String, backend: Int, htpasswd: String, authenticated: Bool, port: Int,
        tls: (port: Int, key: String, certificate: String)?
    ) async throws -> ChildProcess {
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
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
            server.modules = ( "mod_auth", "mod_authn_file", "mod_proxy" )
            server.stream-request-body = 2
            server.stream-response-body = 2
            auth.backend = "htpasswd"
            auth.backend.htpasswd.userfile = "\(htpasswd)"
            \(authenticated ? #"auth.require = ( "" => ( "method" => "basic", "realm" => "lfs", "require" => "valid-user" ) )"# : "")
            proxy.server = ( "" => ( ( "host" => "127.0.0.1", "port" => \(backend) ) ) )
            proxy.forwarded = ( "proto" => 1, "host" => 1 )
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

    /// The LFS endpoint of a repository: giftless's own port, or lighttpd's when it is in front.
    public func endpoint(_ repository: String = "forkstore/assets") -> String {
        "http://127.0.0.1:\(frontPort ?? port)/\(repository)"
    }

    /// The https endpoint of a repository; nil without TLS.
    public func secureEndpoint(_ repository: String = "forkstore/assets") -> String? {
        tlsPort.map { "https://127.0.0.1:\($0)/\(repository)" }
    }

    /// Where giftless keeps an object of a repository.
    public func storedPath(_ oid: String, repository: String = "forkstore/assets") -> String {
        "\(storage)/\(repository)/\(oid)"
    }

    /// giftless's authentication behind lighttpd: whoever lighttpd let through may do anything.
    private static let behindProxyProvider = """
        from giftless.auth.identity import DefaultIdentity

        class Anyone(DefaultIdentity):
            def is_authorized(self, organization, repo, permission, oid=None):
                return True

        def anyone(_request):
            return Anyone(name="behind-lighttpd")

        """

    /// giftless's application with its local storage read in 1 MiB blocks (werkzeug's
    /// `FileWrapper`) rather than by lines.
    private static let blockReads = """
        from giftless.wsgi_entrypoint import app  # first: giftless's modules import each other
        from giftless.storage.local_storage import LocalStorage
        from werkzeug.wsgi import FileWrapper

        _get = LocalStorage.get
        LocalStorage.get = lambda self, prefix, oid: FileWrapper(_get(self, prefix, oid), 1 << 20)

        """

    /// Stops the servers.
    public func stop() {
        front?.stop()
        giftless.stop()
    }

    /// The folder of giftless's virtual environment's programs (`…/bin`).
    public static var environment: String {
        if let configured = ProcessInfo.processInfo.environment["FORKSTORE_GIFTLESS_VENV"], !configured.isEmpty {
            return configured + "/bin"
        }
        // Tests/Support/GiftlessServer.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".venv-giftless/bin").path
    }

    /// The virtual environment's `bin` folder, or an error saying how to make it: a test that
    /// needs giftless fails without it, never skips.
    public static func requireEnvironment() throws -> String {
        let bin = environment
        guard FileManager.default.isExecutableFile(atPath: bin + "/waitress-serve") else {
            throw MissingGiftless(bin: bin)
        }
        return bin
    }

    /// What a test that needs giftless fails with when its virtual environment is missing.
    public struct MissingGiftless: Error, CustomStringConvertible {
        public let bin: String
        public var description: String {
            "giftless is not installed: \(bin)/waitress-serve is missing. Run `bash scripts/setup.sh --test-servers` (it makes the virtual environment .venv-giftless/ with pip), or point FORKSTORE_GIFTLESS_VENV at one made from scripts/giftless-requirements.txt."
        }
    }
}
