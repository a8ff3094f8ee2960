/// How HTTP requests of a transfer are made: timeouts and trust. A value, `Sendable`; each
/// transfer opens an ``HTTPSession`` from it, whose requests share connections.
///
/// Every request: only http and https (curl is told so too); no proxy, as the git transport
/// uses none; no `.netrc`; no content decoding (a compressed body stays what the server sent,
/// so a small one cannot swell); no redirect followed by curl (``HTTPSession`` follows
/// same-origin ones itself); TLS verified against the system's CA store unless `trust` is
/// ``Trust/acceptAny``.
package struct HTTPClient: Sendable {
    /// How long opening a connection may take.
    package var connectTimeout: Duration
    /// How long a request may go below ``minimumRate`` either way (averaged over this time,
    /// whole seconds, at least 1) before it fails as unreachable: a stalled or trickling
    /// server.
    package var readTimeout: Duration
    package var trust: Trust
    /// The most bytes a second a request moves each way; nil for no limit. Tests slow
    /// transfers with it, to stop one half-way.
    package var maximumBytesPerSecond: Int?

    package init(connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(60), trust: Trust = .verify) {
        self.connectTimeout = max(.milliseconds(1), connectTimeout)
        self.readTimeout = max(.seconds(1), readTimeout)
        self.trust = trust
    }

    /// The slowest a request may move bytes, averaged over ``readTimeout``: 1 KiB a second.
    package static let minimumRate = 1024

    /// How long a request that moves no file (a batch, a verify) may take in all, whatever
    /// its rate: twice the read timeout (2 minutes by default). Its bodies are small; a server
    /// that keeps one going longer holds a sync for nothing.
    package var smallExchangeDeadline: Duration { readTimeout * 2 }

    /// How to treat a server's TLS certificate.
    package enum Trust: Sendable, Equatable {
        /// Verify it, and its name, against the system's CA store.
        case verify
        /// Accept any certificate: only for tests against one's own servers.
        case acceptAny
    }

    /// Opens a session: one connection cache, for requests made one after another on one
    /// thread.
    package func session() throws(HTTPFailure) -> HTTPSession {
        try HTTPSession(client: self)
    }
}
