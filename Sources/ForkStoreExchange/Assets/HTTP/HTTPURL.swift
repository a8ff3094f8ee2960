/// An http or https URL, read as libcurl reads it, with its origin: what the LFS transport
/// sends requests to and compares origins of before it sends credentials.
///
/// Made only by ``init(_:)`` (and ``resolving(_:)`` for a redirect's `Location`), which
/// refuse any other scheme, a URL without a host, and one carrying a user or password (curl
/// would send them as credentials to wherever the URL points).
package struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL as curl normalized it: what is requested.
    package let text: String
    /// The scheme, host and port: where credentials may go.
    package let origin: Origin
    /// The path, for messages and for appending to an endpoint.
    package let path: String
    /// Whether the URL has a query (`?…`), which may carry a token.
    package let hasQuery: Bool
    /// Whether the URL has a fragment (`#…`).
    package let hasFragment: Bool

    /// Scheme, host and port, lower-cased, the port always given (80 and 443 when the URL
    /// leaves it out): two URLs have the same origin exactly when these are equal.
    package struct Origin: Sendable, Hashable, CustomStringConvertible {
        package let scheme: String
        package let host: String
        package let port: Int

        package var description: String { "\(scheme)://\(host):\(port)" }
    }

    /// Reads `text` as curl does; nil unless it is an absolute http or https URL with a host
    /// and no user or password.
    package init?(_ text: String) {
        self.init(text, relativeTo: nil)
    }

    private init?(_ text: String, relativeTo base: String?) {
        // Control characters and spaces have no place in a URL a server sends (curl would
        // refuse most, but not rely on it).
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength,
            !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
            let parts = CurlURL.parse(text, relativeTo: base)
        else { return nil }
        let scheme = parts.scheme.lowercased()
        guard scheme == "http" || scheme == "https", !parts.host.isEmpty, !parts.user, let port = Int(parts.port),
            (1...65535).contains(port)
        else { return nil }
        self.text = parts.url
        origin = Origin(scheme: scheme, host: parts.host.lowercased(), port: port)
        path = parts.path
        hasQuery = parts.query
        hasFragment = parts.fragment
    }

    /// The URL a redirect's `Location` names, relative ones resolved against this one; nil
    /// when it is not an http(s) URL this type takes.
    package func resolving(_ location: String) -> HTTPURL? {
        HTTPURL(location, relativeTo: text)
    }

    /// This URL's origin and path with `component` appended as a path segment (the endpoint's
    /// `objects/batch`); the query and fragment are left out.
    package func appending(path component: String) -> HTTPURL? {
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        return HTTPURL("\(origin.scheme)://\(hostForURL)\(portForURL)\(base)/\(component)")
    }

    /// Origin and path only, for messages: a query may carry a token (giftless puts one in
    /// its download links), so it is never shown.
    package var redacted: String {
        "\(origin.scheme)://\(hostForURL)\(portForURL)\(path)\(hasQuery ? "?…" : "")"
    }

    package var description: String { redacted }

    /// The host as it is written in a URL (curl keeps an IPv6 address in brackets).
    private var hostForURL: String { origin.host }

    /// `:port` unless it is the scheme's default.
    private var portForURL: String {
        (origin.scheme == "http" && origin.port == 80) || (origin.scheme == "https" && origin.port == 443) ? "" : ":\(origin.port)"
    }

    /// The longest URL taken (a server's href, a redirect's Location): 8 KiB.
    package static let maximumLength = 8192
}
