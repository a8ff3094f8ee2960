/// Why a fetch or a push failed, sorted once, where the failure is received: libgit2's error
/// code and class are known there, and what the server said is still text that only this
/// layer reads. Layers above act on the case and show the reason; none of them matches words.
///
/// The reason is libgit2's message, with the server's own last lines when it said anything. It
/// may hold what a server echoed back (a URL with a user name); callers that show it scrub it.
package enum TransferFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The remote refused the credentials, or asked for some and none were given.
    case authentication(reason: String)
    /// The server's TLS certificate or ssh host key was not trusted.
    case untrustedServer(reason: String)
    /// The remote knows who we are but does not allow this (gitolite's "denied", an HTTP 403,
    /// a hook's "permission denied").
    case accessDenied(reason: String)
    /// The remote answered, but there is no git repository there (an HTTP 404, git daemon's
    /// "repository not exported").
    case notARepository(reason: String)
    /// The remote sent damaged data, or could not take ours (its index-pack failed).
    case corruptData(reason: String)
    /// The remote is out of reach: nothing listening, no route, no name, a timeout, a
    /// connection dropped half-way.
    case unreachable(reason: String)
    /// The remote redirected to another host, which is not followed: credentials go to the
    /// remote's own origin only.
    case redirectRefused(reason: String)
    /// The remote would bring more than a limit allows: an object larger than the largest a
    /// fetch may bring, or more bytes in all. Refused from the sizes the data declares, before
    /// memory is taken for it.
    case limitExceeded(LimitExceeded)
    /// Any other failure of the transfer.
    case transport(reason: String)

    /// What libgit2 and the server said.
    package var reason: String {
        switch self {
        case .authentication(let reason), .untrustedServer(let reason), .accessDenied(let reason),
            .notARepository(let reason), .corruptData(let reason), .unreachable(let reason),
            .redirectRefused(let reason), .transport(let reason):
            reason
        case .limitExceeded(let exceeded): exceeded.description
        }
    }

    package var description: String { reason }

    /// Sorts a failed transfer: by what our certificate callback saw (`refusedServer`: it
    /// refused the server's identity, or saw libgit2 find a TLS certificate invalid), then by
    /// libgit2's error code, then by its class (what part of libgit2 failed), and only then by
    /// the words of the message, since what a server says (gitolite, an HTTP status line, a
    /// hook, git daemon) arrives as text.
    package init(_ error: GitError, refusedServer: Bool = false) {
        let reason = error.message
        if refusedServer || error.code == .certificate {
            self = .untrustedServer(reason: reason)
            return
        }
        if error.code == .authentication {
            self = .authentication(reason: reason)
            return
        }
        let lower = reason.lowercased()
        func mentions(_ phrases: [String]) -> Bool { phrases.contains(where: lower.contains) }
        if mentions(["cannot redirect"]) {
            self = .redirectRefused(reason: reason)
        } else if mentions(Self.deniedWords) {
            self = .accessDenied(reason: reason)
        } else if mentions(Self.notRepositoryWords) {
            self = .notARepository(reason: reason)
        } else if error.category == .objectData || mentions(Self.corruptWords) {
            self = .corruptData(reason: reason)
        } else if mentions(Self.unreachableWords) {
            self = .unreachable(reason: reason)
        } else {
            self = .transport(reason: reason)
        }
    }

    /// How servers say that the user may not do this (gitolite, HTTP, hooks).
    private static let deniedWords = [" denied by ", "permission denied", "access denied", "403", "forbidden"]
    /// How servers and transports say that a repository is not there.
    private static let notRepositoryWords = [
        "404", "repository not found", "no such repository", "not a git repository",
        "does not appear to be a git repository", "repository not exported", "could not find repository",
        "is this a git repository",
    ]
    /// How a server's pack or its index-pack says the data is damaged.
    private static let corruptWords = [
        "corrupt", "bad object", "inflate", "zlib", "checksum", "invalid pack", "bad pack", "object not found",
        "no match for id", "missing object", "index-pack", "unpack-objects", "pack-objects died",
        "did not receive expected object",
    ]
    /// How sockets and transports say the other end is out of reach.
    private static let unreachableWords = [
        "failed to connect", "connection refused", "could not resolve", "timed out", "timeout",
        "network is unreachable", "failed to resolve address", "early eof", "connection reset", "broken pipe",
        "unexpected eof", "failed to send request", "failed to start ssh session", "ssh session", "error sending data",
    ]
}

/// Runs one transfer (a fetch, a push) whose callbacks report to `state`, turning its libgit2
/// failure into a ``TransferFailure`` where it is received.
func transferring<Result>(_ state: CallbackState, _ body: () throws(GitError) -> Result) throws(TransferFailure) -> Result {
    do {
        return try body()
    } catch {
        throw TransferFailure(error, refusedServer: state.refusedServer)
    }
}
