internal import CCurl
import Foundation

/// Requests made one after another through one curl handle, reusing its connections. Not
/// `Sendable`: one transfer (an upload or download call) owns it, on one thread.
///
/// Redirects: curl follows none. A 307 or 308 to the same origin is followed (method, headers
/// and body kept), and a 301, 302 or 303 to the same origin for a GET; at most
/// ``maximumRedirects`` in a row. A redirect to another origin fails with
/// ``HTTPFailure/redirectRefused(from:to:)``: the request's headers (credentials, a server's
/// token) were meant for its own origin only. A GET with ``HTTPRequest/elsewhereHeaders``
/// follows it with those headers alone (GitLab sends LFS downloads to its object storage so).
/// A redirect that would turn a POST or PUT into a GET fails too (a batch request or an
/// upload would lose its body).
package final class HTTPSession {
    private let client: HTTPClient
    private let curl: CurlHandle

    init(client: HTTPClient) throws(HTTPFailure) {
        self.client = client
        curl = try CurlHandle()
    }

    /// The most redirects followed for one request.
    package static let maximumRedirects = 3

    /// Sends `request` and returns the response, its 2xx body going where `body` says.
    /// `progress` is called as bytes move; `isCancelled` is asked as they move and stops the
    /// request when it says so (the task's cancellation stops it too).
    package func perform(
        _ request: HTTPRequest, body: HTTPResponseBody, isCancelled: () -> Bool = { false },
        progress: (HTTPProgress) -> Void = { _ in }
    ) throws(HTTPFailure) -> HTTPResponse {
        var current = request
        var redirects = 0
        while true {
            let response = try withoutActuallyEscaping(isCancelled) { isCancelled throws(HTTPFailure) in
                try withoutActuallyEscaping(progress) { progress throws(HTTPFailure) in
                    try exchange(current, body: body, isCancelled: isCancelled, progress: progress)
                }
            }
            guard [301, 302, 303, 307, 308].contains(response.status) else { return response }
            current = try redirected(current, by: response)
            redirects += 1
            guard redirects <= Self.maximumRedirects else {
                throw HTTPFailure.redirectNotFollowed(reason: "more than \(Self.maximumRedirects) redirects in a row")
            }
        }
    }

    /// The request to send after `response` redirected `request`, or why it is not followed.
    private func redirected(_ request: HTTPRequest, by response: HTTPResponse) throws(HTTPFailure) -> HTTPRequest {
        guard let location = response.header("Location"), let target = request.url.resolving(location) else {
            throw HTTPFailure.redirectNotFollowed(
                reason: "\(request.url.redacted) answered \(response.status) without a Location that is an http(s) URL")
        }
        var next = request
        next.url = target
        if target.origin != request.url.origin {
            // The headers were meant for the origin that answered: elsewhere, a GET whose
            // bytes are checked anyway goes on with the ones it may keep, and nothing else.
            guard request.method == .get, let kept = request.elsewhereHeaders else {
                throw HTTPFailure.redirectRefused(from: request.url.origin.description, to: target.origin.description)
            }
            next.headers = kept
        }
        if response.status == 307 || response.status == 308 { return next }
        guard request.method == .get else {
            throw HTTPFailure.redirectNotFollowed(
                reason: "\(request.url.redacted) answered a \(request.method.rawValue) with \(response.status), which would turn it into a GET")
        }
        return next
    }

    /// One request and its response, no redirect followed.
    private func exchange(
        _ request: HTTPRequest, body: HTTPResponseBody, isCancelled: @escaping () -> Bool,
        progress: @escaping (HTTPProgress) -> Void
    ) throws(HTTPFailure) -> HTTPResponse {
        let state = HTTPTransferState(
            sink: body, isCancelled: { isCancelled() || Task.isCancelled }, progress: progress)
        defer { state.closeSource() }
        try state.openSource(request.body)
        try configure(request, body: body, state: state)
        let context = Unmanaged.passUnretained(state).toOpaque()
        try curl.set(CURLOPT_WRITEDATA, pointer: context, "WRITEDATA")
        try curl.set(CURLOPT_HEADERDATA, pointer: context, "HEADERDATA")
        try curl.set(CURLOPT_XFERINFODATA, pointer: context, "XFERINFODATA")
        if request.body.size > 0 || request.method != .get {
            try curl.set(CURLOPT_READDATA, pointer: context, "READDATA")
        }
        let (code, reason) = withExtendedLifetime(state) { curl.perform() }
        state.flushBody()
        if let stopped = state.failure { throw stopped }
        guard code == CURLE_OK else {
            throw Self.failure(code, reason: reason, limit: max(body.maximum, HTTPResponse.errorBodyReadLimit))
        }
        let status = curl.responseCode()
        return HTTPResponse(
            status: status, headers: state.headers, body: state.collected, bodyBytes: state.bodyBytes, url: request.url,
            resumedFrom: state.resumedFrom)
    }

    /// Sets every option of one request on the (reset) handle.
    private func configure(_ request: HTTPRequest, body: HTTPResponseBody, state: HTTPTransferState) throws(HTTPFailure) {
        try curl.reset()
        try curl.set(CURLOPT_URL, request.url.text, "URL")
        try curl.set(CURLOPT_PROTOCOLS_STR, "http,https", "PROTOCOLS_STR")
        try curl.set(CURLOPT_FOLLOWLOCATION, 0, "FOLLOWLOCATION")
        try curl.set(CURLOPT_NOSIGNAL, 1, "NOSIGNAL")
        // An empty proxy name turns proxies off, those of the environment too.
        try curl.set(CURLOPT_PROXY, "", "PROXY")
        try curl.set(CURLOPT_HTTPAUTH, Int(forkstore_curl_auth_none()), "HTTPAUTH")
        try curl.set(CURLOPT_USERAGENT, "ForkStore (git-lfs/3.3.0 compatible)", "USERAGENT")
        try curl.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(client.connectTimeout), "CONNECTTIMEOUT_MS")
        // A server trickling a byte a second would hold a sync (and its lock) for days: a body
        // must average the minimum rate over each read timeout, and a small exchange (a batch,
        // a verify, an error's body) must end by its deadline.
        try curl.set(CURLOPT_LOW_SPEED_LIMIT, HTTPClient.minimumRate, "LOW_SPEED_LIMIT")
        try curl.set(CURLOPT_LOW_SPEED_TIME, max(1, Self.milliseconds(client.readTimeout) / 1000), "LOW_SPEED_TIME")
        if Self.isSmall(request, body: body) {
            try curl.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(client.smallExchangeDeadline), "TIMEOUT_MS")
        }
        let verify = client.trust == .verify
        try curl.set(CURLOPT_SSL_VERIFYPEER, verify ? 1 : 0, "SSL_VERIFYPEER")
        try curl.set(CURLOPT_SSL_VERIFYHOST, verify ? 2 : 0, "SSL_VERIFYHOST")
        try curl.set(CURLOPT_BUFFERSIZE, Self.bufferSize, "BUFFERSIZE")
        try curl.set(CURLOPT_UPLOAD_BUFFERSIZE, Self.bufferSize, "UPLOAD_BUFFERSIZE")
        if let speed = client.maximumBytesPerSecond {
            try curl.set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: speed, "MAX_RECV_SPEED_LARGE")
            try curl.set(CURLOPT_MAX_SEND_SPEED_LARGE, offset: speed, "MAX_SEND_SPEED_LARGE")
        }
        // A response declaring a larger body is refused before a byte of it is read.
        try curl.set(CURLOPT_MAXFILESIZE_LARGE, offset: max(body.maximum, HTTPResponse.errorBodyReadLimit), "MAXFILESIZE_LARGE")
        try curl.set(CURLOPT_WRITEFUNCTION, callback: httpReceiveBody, "WRITEFUNCTION")
        try curl.set(CURLOPT_HEADERFUNCTION, callback: httpReceiveHeader, "HEADERFUNCTION")
        try curl.set(CURLOPT_NOPROGRESS, 0, "NOPROGRESS")
        try curl.set(progressCallback: httpProgress)
        var lines = request.headers.map(\.line)
        switch request.method {
        case .get:
            break
        case .post:
            try curl.set(CURLOPT_POST, 1, "POST")
            try curl.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: request.body.size, "POSTFIELDSIZE_LARGE")
            try curl.set(readCallback: httpSendBody)
            // A batch request is small: no waiting for a 100 Continue that servers may never send.
            lines.append("Expect:")
        case .put:
            try curl.set(CURLOPT_UPLOAD, 1, "UPLOAD")
            try curl.set(CURLOPT_INFILESIZE_LARGE, offset: request.body.size, "INFILESIZE_LARGE")
            try curl.set(readCallback: httpSendBody)
            if request.body.size < Self.bufferSize { lines.append("Expect:") }
        }
        try curl.set(CURLOPT_HTTPHEADER, list: lines, "HTTPHEADER")
    }

    /// Whether a request moves no file either way (a batch, a verify): it has a deadline.
    private static func isSmall(_ request: HTTPRequest, body: HTTPResponseBody) -> Bool {
        if case .file = request.body { return false }
        if case .collect = body { return true }
        return false
    }

    /// What one read or write of the body moves at most: 256 KiB.
    static let bufferSize = 256 << 10

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(min(seconds, 86_400 * 365)) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Sorts curl's failure by its code.
    private static func failure(_ code: CURLcode, reason: String, limit: Int) -> HTTPFailure {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT,
            CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            .unreachable(reason: reason)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS:
            .untrustedServer(reason: reason)
        case CURLE_FILESIZE_EXCEEDED:
            .tooLarge(limit: limit)
        case CURLE_ABORTED_BY_CALLBACK:
            .cancelled
        default:
            .transport(reason: reason)
        }
    }
}
