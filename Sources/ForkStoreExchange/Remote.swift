import Foundation

/// A git remote to sync with: a local path, `file://`, `git://`, `http(s)://` or `ssh://`
/// (also scp-style `user@host:path`), with the credentials to use and how to trust the server.
public struct Remote: Sendable, CustomStringConvertible {
    /// The remote's URL, never carrying a password.
    public let url: String
    /// How to sign in; nil for none.
    public var credentials: Credentials?
    /// How to trust the server's certificate or host key.
    public var trust: ServerTrust
    /// The assets endpoint the app set (``assetsURL``); nil to derive it from ``url``.
    var configuredAssetsURL: String?

    /// Makes a remote, refusing URLs that embed a password or token (pass ``Credentials``
    /// instead, so no secret is written into a URL, a log or a config file). `assetsURL` is
    /// where its assets go (see ``assetsURL``); nil derives it from `url` as git-lfs does.
    public init(
        _ url: String, credentials: Credentials? = nil, trust: ServerTrust = .verify, assetsURL: String? = nil
    ) throws(ExchangeError) {
        self.url = try Self.checked(url)
        self.credentials = credentials
        self.trust = trust
        self.configuredAssetsURL = try assetsURL.map { (url) throws(ExchangeError) in try Self.checked(url) }
    }

    /// `url` trimmed, refused when empty or when it holds a password or a control character.
    static func checked(_ url: String) throws(ExchangeError) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ExchangeError.invalidRemote(url: "", reason: "the URL is empty") }
        if let components = URLComponents(string: trimmed), components.scheme != nil, components.password != nil {
            throw ExchangeError.invalidRemote(
                url: Remote.redacted(trimmed),
                reason: "it contains a password; pass it as credentials instead")
        }
        if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ExchangeError.invalidRemote(url: Remote.redacted(trimmed), reason: "it contains a control character")
        }
        return trimmed
    }

    /// The kind of transport the URL selects.
    public enum Transport: Sendable, Equatable {
        /// A folder on this machine (a path or `file://`).
        case local
        /// `git://`, served by `git daemon`.
        case git
        /// Smart HTTP.
        case http
        /// Smart HTTP over TLS.
        case https
        /// `ssh://` or scp-style `user@host:path`.
        case ssh
    }

    /// The transport the URL selects.
    public var transport: Transport {
        let lower = url.lowercased()
        if lower.hasPrefix("git://") { return .git }
        if lower.hasPrefix("http://") { return .http }
        if lower.hasPrefix("https://") { return .https }
        if lower.hasPrefix("ssh://") || lower.hasPrefix("ssh+git://") { return .ssh }
        if lower.hasPrefix("file://") || url.hasPrefix("/") || url.hasPrefix(".") { return .local }
        // scp-like: user@host:path, with no slash before the colon.
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return .ssh }
        return .local
    }

    /// The folder of a local remote.
    var localPath: String? {
        guard transport == .local else { return nil }
        if url.lowercased().hasPrefix("file://") { return URL(string: url)?.path }
        return url
    }

    public var description: String { url }

    /// `text` with any `user:password@` userinfo reduced to `user@`.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = nil
        return components.string ?? "(a URL with credentials)"
    }
}

/// How to sign in to a remote. Secrets are kept in memory only, never printed: the
/// description of any case hides them.
public enum Credentials: Sendable, CustomStringConvertible {
    /// A user name and a password or token, for http(s).
    case userPassword(username: String, password: String)
    /// An ssh key pair from files.
    case sshKey(username: String, privateKey: String, publicKey: String? = nil, passphrase: String? = nil)
    /// The keys of the running ssh agent (`SSH_AUTH_SOCK`).
    case sshAgent(username: String)

    public var description: String {
        switch self {
        case .userPassword(let username, _): "user \(username) with a password (hidden)"
        case .sshKey(let username, let privateKey, _, _): "ssh key \(privateKey) for \(username)"
        case .sshAgent(let username): "ssh agent for \(username)"
        }
    }

    /// The secrets in every form a server could echo them (as typed, percent-encoded, and in
    /// base64 alone or as basic authentication's `user:password`), longest first, so messages
    /// can be scrubbed of them.
    var secrets: [String] {
        var forms = Set<String>()
        func add(_ secret: String) {
            guard !secret.isEmpty else { return }
            forms.insert(secret)
            forms.insert(Data(secret.utf8).base64EncodedString())
            for allowed in [CharacterSet.alphanumerics, .urlPasswordAllowed] {
                if let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) { forms.insert(encoded) }
            }
        }
        switch self {
        case .userPassword(let username, let password):
            add(password)
            if !password.isEmpty { forms.insert(Data((username + ":" + password).utf8).base64EncodedString()) }
        case .sshKey(_, _, _, let passphrase): passphrase.map(add)
        case .sshAgent: break
        }
        return forms.sorted { $0.count > $1.count }
    }

    /// `text` without any form of the secrets.
    func scrubbed(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "(hidden)") }
    }
}

/// How to trust the server.
public enum ServerTrust: Sendable, Equatable {
    /// Verify TLS certificates against the system's CA store and ssh host keys against
    /// `~/.ssh/known_hosts`. The default.
    case verify
    /// Accept the ssh host key only if its SHA-256 fingerprint matches, written as
    /// `ssh-keygen -lf` prints it: `SHA256:` followed by unpadded base64.
    case pinnedHostKey(fingerprint: String)
    /// Accept any certificate or host key. Only for tests against your own servers.
    case acceptAnyServer
}
