import ForkStore
/// One HTTP request: method, URL, header lines and body. Its headers are sent as given, and
/// to the URL's origin only: an ``HTTPSession`` follows no redirect to another origin, unless
/// ``elsewhereHeaders`` lets a `GET` follow one without them.
package struct HTTPRequest: Sendable {
    package var method: Method
    package var url: HTTPURL
    /// Header lines, in order. Names and values must not hold line breaks (``HTTPHeader``'s
    /// initializer refuses them).
    package var headers: [HTTPHeader]
    package var body: Body
    /// For a `GET` whose answer is checked anyway (a download, hashed before it is kept):
    /// the headers it keeps when a redirect leads to another origin (a `Range`, never a
    /// credential), which it then follows. Nil, the default: such a redirect is refused.
    package var elsewhereHeaders: [HTTPHeader]?

    package init(_ method: Method, _ url: HTTPURL, headers: [HTTPHeader] = [], body: Body = .none) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The methods the LFS transport uses.
    package enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
    }

    /// What a request sends.
    package enum Body: Sendable {
        case none
        /// Bytes in memory (a batch request: small).
        case bytes([UInt8])
        /// The first `size` bytes of a file, read as they are sent, a piece at a time, so
        /// memory stays flat whatever its size. With `id`, the bytes are hashed as they are
        /// sent, and the request is stopped before its last piece leaves when they do not hash
        /// to `id` (``HTTPFailure/localFileCorrupt(path:reason:)``): a damaged local copy never
        /// reaches the server whole.
        case file(path: String, size: Int, id: AssetID? = nil)

        var size: Int {
            switch self {
            case .none: 0
            case .bytes(let bytes): bytes.count
            case .file(_, let size, _): size
            }
        }
    }
}

/// One header line. Made only from names of token characters and values without line breaks
/// or other control characters (a tab aside), so no value (from a server's action, say) can add
/// lines to a request.
package struct HTTPHeader: Sendable, Hashable {
    package let name: String
    package let value: String

    /// Nil when the name is not an HTTP token, or the value holds a control character.
    package init?(_ name: String, _ value: String) {
        guard !name.isEmpty, name.utf8.count <= 256, name.utf8.allSatisfy(Self.isTokenByte),
            value.utf8.count <= Self.maximumValueLength,
            value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) })
        else { return nil }
        self.name = name
        self.value = value
    }

    /// The line curl sends: `Name: value`.
    var line: String { "\(name): \(value)" }

    /// The longest value taken: 8 KiB.
    package static let maximumValueLength = 8192

    /// RFC 9110's token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// Where a response's body goes when its status is 2xx; the body of any other status is kept
/// in memory up to ``HTTPResponse/errorBodyLimit`` bytes, for its message, and the rest read
/// and dropped.
package enum HTTPResponseBody: Sendable {
    /// Kept in memory, at most `maximum` bytes: a batch answer. More stops the transfer with
    /// ``HTTPFailure/tooLarge(limit:)``.
    case collect(maximum: Int)
    /// Written to an open file descriptor at its current offset, at most `maximum` bytes: a
    /// download. More stops the transfer with ``HTTPFailure/tooLarge(limit:)``.
    case file(descriptor: Int32, path: String, maximum: Int)
    /// The rest of a download of `size` bytes into an open file that holds its first `from`
    /// bytes, when the request asked for them with `Range: bytes=from-`. A 206 is taken only
    /// with a `Content-Range` of exactly `from` to the end of `size` bytes, and written from
    /// `from` on; any other 2xx is the whole object, and the file is emptied first. Either way
    /// no more than `size` bytes end up in the file; a 206 that does not match stops the
    /// transfer with ``HTTPFailure/refusedResponse(reason:)``.
    case resume(descriptor: Int32, path: String, from: Int, size: Int)

    /// The most a 2xx body may hold, whatever status arrives.
    var maximum: Int {
        switch self {
        case .collect(let maximum), .file(_, _, let maximum): maximum
        case .resume(_, _, _, let size): size
        }
    }
}

/// A response: the last one, after any same-origin redirect was followed.
package struct HTTPResponse: Sendable {
    package var status: Int
    /// Header lines as received (names as the server wrote them).
    package var headers: [HTTPHeader]
    /// A collected 2xx body; for any other status, the first ``errorBodyLimit`` bytes of its
    /// body.
    package var body: [UInt8]
    /// How many bytes of a 2xx body were taken (collected, or written to the file).
    package var bodyBytes: Int
    /// The URL that answered (the request's, or where a redirect led on the same origin).
    package var url: HTTPURL
    /// Where in the file a ``HTTPResponseBody/resume(descriptor:path:from:size:)`` body
    /// started: the `from` of a 206 taken, 0 for a whole body.
    package var resumedFrom: Int

    /// The value of the first header with this name (compared without case).
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    package var isSuccess: Bool { (200..<300).contains(status) }

    /// How much of a non-2xx body is kept for its message: 64 KiB.
    package static let errorBodyLimit = 64 << 10
    /// How much of a non-2xx body is read at all before the transfer is stopped: 1 MiB.
    package static let errorBodyReadLimit = 1 << 20
}

/// Bytes moved so far by one request: sent (a request body) and received (a response body).
package struct HTTPProgress: Sendable, Equatable {
    package var sent: Int
    package var received: Int
    /// Where a resumed download's body starts in its file (``HTTPResponse/resumedFrom``).
    package var resumedFrom: Int
}
