/// How to authenticate to a remote. Secrets stay in memory and are handed to libgit2 only
/// inside its credential callback.
package enum RemoteCredential: Sendable {
    case userPassword(username: String, password: String)
    case sshKey(username: String, publicKeyPath: String?, privateKeyPath: String, passphrase: String?)
    case sshAgent(username: String)
}

/// How to treat the server's TLS certificate or ssh host key.
package enum TrustPolicy: Sendable, Equatable {
    /// libgit2's own checks: the system's CA store for TLS, `~/.ssh/known_hosts` for ssh.
    case verify
    /// Accept an ssh host key only if its SHA-256 matches; TLS is verified as usual.
    case pinnedHostKey(sha256: [UInt8])
    /// Accept anything. Only for tests.
    case acceptAny
}

/// Objects and bytes moved so far by a fetch or a push.
package struct TransferStatistics: Sendable, Equatable {
    package enum Direction: Sendable, Equatable { case fetch, push }
    package var direction: Direction
    package var objects: Int
    package var totalObjects: Int
    package var bytes: Int

    package init(direction: Direction, objects: Int, totalObjects: Int, bytes: Int) {
        self.direction = direction
        self.objects = objects
        self.totalObjects = totalObjects
        self.bytes = bytes
    }
}

/// Everything a fetch or push needs besides the URL and refspecs.
package struct RemoteOptions: Sendable {
    package typealias Progress = @Sendable (TransferStatistics) -> Void

    package var credential: RemoteCredential?
    package var trust: TrustPolicy
    /// How many times the credential may be offered before giving up (servers ask again
    /// after each rejection).
    package var maximumCredentialAttempts: Int
    /// How long connecting, and each read or write, may take.
    package var timeouts: NetworkTimeouts
    /// The most a fetch may bring, checked before memory is taken for it.
    package var limits: IncomingLimits
    package var progress: Progress?

    package init(
        credential: RemoteCredential? = nil, trust: TrustPolicy = .verify, maximumCredentialAttempts: Int = 2,
        timeouts: NetworkTimeouts = NetworkTimeouts(), limits: IncomingLimits = .standard, progress: Progress? = nil
    ) {
        self.credential = credential
        self.trust = trust
        self.maximumCredentialAttempts = maximumCredentialAttempts
        self.timeouts = timeouts
        self.limits = limits
        self.progress = progress
    }
}
