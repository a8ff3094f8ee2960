/// Why an HTTP request got no response, sorted where curl reported it (by curl's code, and by
/// what this client's own callbacks stopped for), never by the words of a message. The
/// reasons are curl's words; they name hosts, never a query or a header.
package enum HTTPFailure: Error, Sendable, Equatable {
    /// No connection, or it broke: a name that does not resolve, nothing listening, a timeout
    /// (connecting, or no byte moving for the read timeout), a connection dropped half-way.
    case unreachable(reason: String)
    /// TLS failed: the certificate was not trusted, or the handshake failed.
    case untrustedServer(reason: String)
    /// A redirect to another origin (scheme, host and port), which is not followed: headers
    /// and credentials go to the origin they were meant for only.
    case redirectRefused(from: String, to: String)
    /// A redirect that is not followed for another reason: too many in a row, one without a
    /// usable `Location`, or one that would change the method of a request with a body.
    case redirectNotFollowed(reason: String)
    /// A 2xx response body passed the most the request accepts, in bytes (or declared a
    /// larger length); the transfer was stopped there. (Headers over 256 KiB, or another
    /// status's body over 1 MiB, are ``transport(reason:)``.)
    case tooLarge(limit: Int)
    /// The response broke a rule of the request: a 206 whose `Content-Range` is not the
    /// range asked for (``HTTPResponseBody/resume(descriptor:path:from:size:)``).
    case refusedResponse(reason: String)
    /// The caller cancelled the request (its task, or its own flag).
    case cancelled
    /// A local file the request reads or writes failed: its path and `errno`.
    case localFile(path: String, errno: Int32)
    /// The file a request sends did not hash to the id it was sent as; the request was
    /// stopped before its last piece left.
    case localFileCorrupt(path: String, reason: String)
    /// Any other failure.
    case transport(reason: String)
}
