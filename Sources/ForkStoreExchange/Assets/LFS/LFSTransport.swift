import ForkStore
import ForkStoreGit
import Foundation

/// Assets over the Git LFS batch API and its `basic` transfer, on any Git LFS server
/// (giftless, GitHub, GitLab, Gitea, lfs-test-server…), through libcurl.
///
/// - The batch request: `POST <endpoint>/objects/batch`, `Accept` and `Content-Type`
///   `application/vnd.git-lfs+json`, at most 100 objects (`oid`, `size`) a request. The answer
///   is read strictly (``LFSBatchAnswer``) and must answer every object with its size.
/// - Upload: `PUT` of the object's file to the `upload` action's href, streamed from disk with
///   its length, then `POST` to the `verify` action when the server gives one. An object the
///   server already has comes without an upload action and is skipped. An upload that stopped
///   half-way starts its object again: the basic transfer has no way to resume a `PUT`.
/// - Download: `GET` of the `download` action's href into the object's partial file
///   (``AssetFolder/partialPath(of:)``). When an earlier download left bytes there, the
///   request asks `Range: bytes=N-`; a 206 is taken only with the matching `Content-Range`,
///   any other 2xx starts the file again; never more than the object's size is accepted. Then
///   ``AssetFolder/commit(_:as:size:)`` moves it into place only if it hashes to its id.
/// - The objects of a batch move up to 8 at a time, each on a session (a connection) of its
///   own (``LFSConcurrentTransfers``).
/// - Credentials (basic authentication) go to the endpoint's own origin (scheme, host and
///   port) only. An action's request carries the action's own headers, and the credentials
///   only when its href has the endpoint's origin and the action sets no `Authorization`.
/// - Redirects: see ``HTTPSession`` (same origin only, at most 3; a download's `GET` also
///   to another origin, without credentials or the action's headers).
/// - Failures: of the whole transfer, `TransferFailure` (401: authentication, 403: access
///   denied, 404 on the endpoint: not a repository, no connection or a timeout: unreachable,
///   TLS: untrusted server, 5xx (once asked twice more: ``retryDelays``) and anything else:
///   transport); of one object,
///   ``AssetTransferFailure`` (the server's 404 or 410 for it: missing on the remote; a
///   download's 422 for it (giftless: the size it holds is another) and bytes that do not
///   hash or run long: corrupt; anything else it says or does about it: refused). A
///   download's batch request answered 404 or 422 as a whole is an answer about its objects
///   (``LFSObjectsNotServed``): a 404 says each is missing; a 422 about several is asked again
///   object by object, so those the server has still come, and a 422 about one is its own.
///   A transfer goes on past a failure of one object and throws the first one at the end; a
///   failure of the whole transfer stops it at once. A task's cancellation, or `isCancelled`,
///   stops it with `CancellationError`. No message holds the password, the server's tokens
///   (action headers) or an href's query.
package struct LFSTransport: AssetTransport {
    /// The LFS endpoint (`…/info/lfs` for most git hosts; giftless: `http://host/ORG/REPO`).
    package let endpoint: HTTPURL
    /// The user name of basic authentication; nil for none.
    package let username: String?
    private let password: String?
    /// Timeouts and trust of every request.
    package let client: HTTPClient
    private var isCancelled: @Sendable () -> Bool

    /// A transport to the LFS server at `endpoint`, an http(s) URL without a user, password,
    /// query or fragment. `username` and `password` sign in with basic authentication (both or
    /// neither). `trust` `.acceptAny` takes any TLS certificate (tests only). `pause` slows
    /// every request to a megabyte a pause, so a test can stop a transfer half-way.
    package init(
        endpoint: String, username: String? = nil, password: String? = nil, trust: HTTPClient.Trust = .verify,
        connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(60), pause: Duration = .zero,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(InvalidLFSEndpoint) {
        let trimmed = endpoint.trimmingCharacters(in: .whitespaces)
        guard let url = HTTPURL(trimmed), !url.hasQuery, !url.hasFragment else {
            throw InvalidLFSEndpoint(
                endpoint: Remote.redacted(trimmed),
                reason: "an LFS endpoint is an http or https URL without a user, password, query or fragment")
        }
        guard (username == nil) == (password == nil) else {
            throw InvalidLFSEndpoint(endpoint: url.redacted, reason: "basic authentication needs both a user name and a password")
        }
        self.endpoint = url
        self.username = username
        self.password = password
        var client = HTTPClient(connectTimeout: connectTimeout, readTimeout: readTimeout, trust: trust)
        if pause > .zero { client.maximumBytesPerSecond = max(1, Int(Double(1 << 20) / pause.seconds)) }
        self.client = client
        self.isCancelled = isCancelled
    }

    /// The batch URL: `<endpoint>/objects/batch`.
    package var batchURL: HTTPURL? { endpoint.appending(path: "objects/batch") }

    // MARK: Batches

    /// Asks the server about `objects` (at most ``LFSBatchRequest/maximumObjects``). A
    /// download's 404 or 422 throws ``LFSObjectsNotServed``: a statement about the objects.
    func batch(_ operation: LFSOperation, _ objects: [AssetObject], session: HTTPSession, secrets: LFSSecrets) throws -> LFSBatchAnswer {
        guard let url = batchURL else {
            throw TransferFailure.transport(reason: "no batch URL can be made from \(endpoint.redacted)")
        }
        let request = LFSBatchRequest(operation, objects)
        var headers = [HTTPHeader("Accept", LFSBatchRequest.mediaType), HTTPHeader("Content-Type", LFSBatchRequest.mediaType)]
            .compactMap { $0 }
        if let authorization { headers.append(authorization) }
        let limit = LFSBatchRequest.answerLimit(objects: objects.count)
        let response: HTTPResponse
        do {
            response = try perform(HTTPRequest(.post, url, headers: headers, body: .bytes(request.body)), body: .collect(maximum: limit), session: session)
        } catch .tooLarge(let limit) {
            throw TransferFailure.transport(
                reason: "the batch answer of \(url.redacted) ran past \(limit) bytes, more than an answer about \(objects.count) objects takes")
        } catch {
            throw transferFailure(error, at: url, secrets: secrets)
        }
        if operation == .download, response.status == 404 || response.status == 422 {
            let message = Self.serverMessage(response)
            throw LFSObjectsNotServed(status: response.status, message: secrets.scrubbed(String(message.dropFirst(min(2, message.count)))))
        }
        guard response.isSuccess else { throw statusFailure(response, at: url, secrets: secrets) }
        do {
            return try LFSBatchAnswer(parsing: response.body, for: request)
        } catch {
            throw TransferFailure.corruptData(reason: secrets.scrubbed("the batch answer of \(url.redacted) is refused: \(error.reason)"))
        }
    }

    // MARK: Requests

    /// Sends one request, stopping it when the task is cancelled or `isCancelled` says so. A
    /// 5xx answer is asked again after each of ``retryDelays`` (every request of the transfer
    /// can be sent again: a batch, a verify, a `PUT` of a whole file, a `GET` whose error body
    /// never reached the file); the last answer is returned.
    func perform(
        _ request: HTTPRequest, body: HTTPResponseBody, session: HTTPSession, progress: (HTTPProgress) -> Void = { _ in }
    ) throws(HTTPFailure) -> HTTPResponse {
        var response = try session.perform(request, body: body, isCancelled: isCancelled, progress: progress)
        for delay in Self.retryDelays where response.status >= 500 {
            Thread.sleep(forTimeInterval: delay.seconds)
            guard !isCancelled() else { throw HTTPFailure.cancelled }
            response = try session.perform(request, body: body, isCancelled: isCancelled, progress: progress)
        }
        return response
    }

    /// The waits before asking again after a 5xx: a server's passing failure is tried twice
    /// more, as git-lfs retries. giftless, for one, answers 500 to some of the first uploads
    /// to a new repository made at the same time (two threads create its folder at once).
    static let retryDelays: [Duration] = [.milliseconds(100), .milliseconds(400)]

    /// This transport, stopping its requests also when `stop` says so.
    func stopping(_ stop: @escaping @Sendable () -> Bool) -> LFSTransport {
        var copy = self
        let stopped = isCancelled
        copy.isCancelled = { stop() || stopped() }
        return copy
    }

    /// The `Authorization` header of basic authentication, or nil without credentials.
    var authorization: HTTPHeader? {
        guard let username, let password else { return nil }
        return HTTPHeader("Authorization", "Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
    }

    /// The headers of an action's request: the action's own, and the credentials only when the
    /// href has the endpoint's origin and the action sets no `Authorization` of its own.
    func headers(for action: LFSAction, adding extra: [HTTPHeader] = []) -> [HTTPHeader] {
        var headers = action.headers
        if action.href.origin == endpoint.origin, !headers.contains(where: { $0.name.lowercased() == "authorization" }),
            let authorization
        {
            headers.append(authorization)
        }
        return headers + extra
    }

    /// The secrets of this transport: every form of the password.
    func secrets() -> LFSSecrets {
        var secrets = LFSSecrets()
        if let username, let password { secrets.add(Credentials.userPassword(username: username, password: password).secrets) }
        return secrets
    }

    // MARK: Failures

    /// A request that got no response, as a failure of the whole transfer; a cancellation
    /// as `CancellationError`, a local file's failure as the store's error.
    func transferFailure(_ failure: HTTPFailure, at url: HTTPURL, secrets: LFSSecrets) -> any Error {
        switch failure {
        case .unreachable(let reason): return TransferFailure.unreachable(reason: secrets.scrubbed(reason))
        case .untrustedServer(let reason): return TransferFailure.untrustedServer(reason: secrets.scrubbed(reason))
        case .redirectRefused(let from, let to):
            return TransferFailure.redirectRefused(reason: "\(url.redacted) redirected from \(from) to \(to)")
        case .redirectNotFollowed(let reason): return TransferFailure.transport(reason: secrets.scrubbed(reason))
        case .tooLarge(let limit): return TransferFailure.transport(reason: "\(url.redacted) sent more than \(limit) bytes")
        case .refusedResponse(let reason): return TransferFailure.transport(reason: secrets.scrubbed("\(url.redacted) sent \(reason)"))
        case .cancelled: return CancellationError()
        case .localFile(let path, let code): return Self.fileFailure(path: path, errno: code)
        case .localFileCorrupt(let path, let reason): return StoreError.fileSystem(path: path, reason: reason)
        case .transport(let reason): return TransferFailure.transport(reason: secrets.scrubbed(reason))
        }
    }

    /// A local file that failed, as the store reports one.
    static func fileFailure(path: String, errno code: Int32) -> StoreError {
        StoreError.fileSystem(path: path, reason: "\(String(cString: strerror(code))) (errno \(code))")
    }

    /// A response whose status says the request failed, as a failure of the whole transfer:
    /// 401 authentication, 403 access denied, 404 not a repository, anything else transport.
    func statusFailure(_ response: HTTPResponse, at url: HTTPURL, secrets: LFSSecrets) -> TransferFailure {
        let reason = secrets.scrubbed("\(url.redacted) answered \(response.status)\(Self.serverMessage(response))")
        return switch response.status {
        case 401: .authentication(reason: reason)
        case 403: .accessDenied(reason: reason)
        case 404: .notARepository(reason: reason)
        default: .transport(reason: reason)
        }
    }

    /// `: <message>` from a failed response's body (the `message` of a Git LFS error's
    /// JSON, or its first line of text), or nothing.
    static func serverMessage(_ response: HTTPResponse) -> String {
        let text: String
        if let value = try? JSONValue(parsing: response.body), case .string(let message) = value["message"] {
            text = message
        } else {
            text = String(decoding: response.body.prefix(400), as: UTF8.self)
                .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        let shown = LFSBatchAnswer.shown(text.trimmingCharacters(in: .whitespaces))
        return shown.isEmpty ? "" : ": \(shown)"
    }
}

/// A download's batch request answered 404 or 422 as a whole: the server serves none of the
/// objects it named. giftless answers so when every object is missing (404) or when each is
/// missing or has another size (422); the Git LFS API documents 422 as "validation error with
/// one or more of the objects", and git-lfs reads 404 as "repository or object not found".
struct LFSObjectsNotServed: Error {
    var status: Int
    /// The server's message, or nothing.
    var message: String
}

/// An LFS endpoint that cannot be used: its URL (without a password) and why.
package struct InvalidLFSEndpoint: Error, Sendable, Equatable, CustomStringConvertible {
    package var endpoint: String
    package var reason: String
    package var description: String { "the LFS endpoint '\(endpoint)' cannot be used: \(reason)" }
}

/// Text a message must never show: the password in every form a server could echo it, and
/// the tokens a server handed out (action headers' values, hrefs' queries).
struct LFSSecrets {
    private var values: [String] = []

    /// Adds secrets, longest first; those shorter than `minimumLength` are left out (a
    /// server's header value of "1" is no secret worth blanking every "1" of a message for).
    mutating func add(_ secrets: [String], minimumLength: Int = 1) {
        for secret in secrets where secret.utf8.count >= minimumLength && !values.contains(secret) { values.append(secret) }
        values.sort { $0.utf8.count > $1.utf8.count }
    }

    /// Adds an action's secrets: its header values (and the token of `Bearer …`/`Basic …`
    /// alone), and its href's query.
    mutating func add(_ action: LFSAction) {
        var found: [String] = []
        for header in action.headers {
            found.append(header.value)
            if let space = header.value.firstIndex(of: " ") { found.append(String(header.value[header.value.index(after: space)...])) }
        }
        if let question = action.href.text.firstIndex(of: "?") {
            found.append(String(action.href.text[action.href.text.index(after: question)...]))
        }
        add(found, minimumLength: 4)
    }

    func scrubbed(_ text: String) -> String {
        values.reduce(text) { $0.replacingOccurrences(of: $1, with: "(hidden)") }
    }
}
