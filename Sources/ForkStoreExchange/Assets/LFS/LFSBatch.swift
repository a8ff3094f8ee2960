import ForkStore
import Foundation

/// Which way a Git LFS batch request moves objects.
package enum LFSOperation: String, Sendable {
    case upload
    case download
}

/// A Git LFS batch request: `POST <endpoint>/objects/batch` with this JSON body, offering the
/// `basic` transfer only, objects named by oid and size.
package struct LFSBatchRequest: Sendable, Equatable {
    package var operation: LFSOperation
    package var objects: [AssetObject]

    package init(_ operation: LFSOperation, _ objects: [AssetObject]) {
        self.operation = operation
        self.objects = objects
    }

    /// The request body: `{"operation": …, "transfers": ["basic"], "objects": [{"oid", "size"}…],
    /// "hash_algo": "sha256"}`.
    package var body: [UInt8] {
        let objects = objects.map { JSONValue.object([.init(key: "oid", value: .string($0.id.hex)), .init(key: "size", value: .number(String($0.size)))]) }
        let value = JSONValue.object([
            .init(key: "hash_algo", value: .string("sha256")),
            .init(key: "objects", value: .array(objects)),
            .init(key: "operation", value: .string(operation.rawValue)),
            .init(key: "transfers", value: .array([.string("basic")])),
        ])
        return value.canonicalBytes
    }

    /// The media type of batch requests and answers.
    package static let mediaType = "application/vnd.git-lfs+json"

    /// The most objects one batch request names (git-lfs sends 100 too).
    package static let maximumObjects = 100

    /// The most bytes an answer to a request for `count` objects may hold: 1 MiB, and 8 KiB
    /// an object (two actions with long hrefs and tokens are about 1.3 KiB).
    package static func answerLimit(objects count: Int) -> Int {
        (1 << 20) + 8192 * count
    }
}

/// One action of an object in a batch answer: where to send the request, and the headers the
/// server asks for (its own tokens: secrets, never shown).
package struct LFSAction: Sendable, Equatable {
    package var href: HTTPURL
    package var headers: [HTTPHeader]
    /// When the server said the action stops working (`expires_in` from the answer's
    /// arrival, or `expires_at`, the earlier of the two); nil when it did not say.
    package var expiresAt: Date? = nil

    /// Whether the action has expired, or will within `margin` of `now`.
    func expires(within margin: TimeInterval, now: Date = Date()) -> Bool {
        expiresAt.map { $0 < now.addingTimeInterval(margin) } ?? false
    }
}

/// What a batch answer says about one requested object.
package enum LFSObjectAnswer: Sendable, Equatable {
    /// The actions to take, by name (`upload`, `verify`, `download`). For an upload, none
    /// means the server has the object already. For a download, `download` is always there.
    case actions([String: LFSAction])
    /// The server's error for this object: its code (404: it does not have it) and message.
    case error(code: Int, message: String)
    /// The answer about this object breaks a rule (no answer at all, another size, an action
    /// that is not http(s), a header that is not allowed): nothing is done with it.
    case refused(reason: String)
}

/// A Git LFS batch answer, read strictly from bytes a server sent.
///
/// The document must be a JSON object whose `objects` is an array of objects, each with an
/// `oid` (64 hexadecimal digits) and a whole `size`; `transfer`, when present, must be
/// `basic`. Anything else makes the whole answer ``Malformed``. Within that shape, each
/// requested object gets one ``LFSObjectAnswer``: an object answered twice, with another size,
/// or not at all is refused; an action must have an `href` that is an http(s) URL without a
/// user or password (``HTTPURL``) and `header` members that are strings an HTTP header can
/// carry, none of those the client frames a request with (`Content-Length`, `Host`,
/// `Range`, …); members of the wrong type are refused, unknown members ignored. Answers about
/// objects not requested are ignored.
package struct LFSBatchAnswer: Sendable, Equatable {
    package var objects: [AssetID: LFSObjectAnswer]

    /// Why an answer is not a batch answer at all.
    package struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// Reads `bytes` as the answer to `request`, received at `receivedAt` (from which the
    /// actions' `expires_in` count). Bytes beyond ``LFSBatchRequest/answerLimit(objects:)``
    /// are refused unread.
    package init(parsing bytes: [UInt8], for request: LFSBatchRequest, receivedAt: Date = Date()) throws(Malformed) {
        let limit = LFSBatchRequest.answerLimit(objects: request.objects.count)
        guard bytes.count <= limit else { throw Malformed(reason: "the answer has \(bytes.count) bytes, over the \(limit) one takes") }
        let document: JSONValue
        do { document = try JSONValue(parsing: bytes) } catch { throw Malformed(reason: "the answer is not JSON (\(error))") }
        guard case .object = document else { throw Malformed(reason: "the answer is not a JSON object") }
        switch document["transfer"] {
        case nil, .string("basic"): break
        case .string(let other): throw Malformed(reason: "the server chose the transfer '\(Self.shown(other))', which was not offered")
        default: throw Malformed(reason: "'transfer' is not a string")
        }
        guard case .array(let entries) = document["objects"] else { throw Malformed(reason: "'objects' is missing or not an array") }

        var found: [AssetID: [(size: Int, entry: JSONValue)]] = [:]
        for (index, entry) in entries.enumerated() {
            guard case .object = entry else { throw Malformed(reason: "objects[\(index)] is not an object") }
            guard case .string(let oid) = entry["oid"], let id = AssetID(oid), oid == id.hex else {
                throw Malformed(reason: "objects[\(index)] has no oid of 64 lowercase hexadecimal digits")
            }
            guard case .number(let sizeText) = entry["size"], let size = Int(sizeText), size >= 0 else {
                throw Malformed(reason: "objects[\(index)] has no size that is a whole number of bytes")
            }
            found[id, default: []].append((size, entry))
        }

        var objects: [AssetID: LFSObjectAnswer] = [:]
        for object in request.objects where objects[object.id] == nil {
            guard let answers = found[object.id] else {
                objects[object.id] = .refused(reason: "the server's answer does not mention it")
                continue
            }
            guard answers.count == 1, let answer = answers.first else {
                objects[object.id] = .refused(reason: "the server answered about it \(answers.count) times")
                continue
            }
            guard answer.size == object.size else {
                objects[object.id] = .refused(reason: "the server answered about \(answer.size) bytes where the asset has \(object.size)")
                continue
            }
            objects[object.id] = Self.answer(answer.entry, operation: request.operation, receivedAt: receivedAt)
        }
        self.objects = objects
    }

    /// The answer about one object whose oid and size match.
    private static func answer(_ entry: JSONValue, operation: LFSOperation, receivedAt: Date) -> LFSObjectAnswer {
        if let error = entry["error"] {
            guard case .object = error, case .number(let codeText) = error["code"], let code = Int(codeText) else {
                return .refused(reason: "its 'error' has no whole 'code'")
            }
            let message: String
            switch error["message"] {
            case nil: message = ""
            case .string(let text): message = shown(text)
            default: return .refused(reason: "its error's 'message' is not a string")
            }
            return .error(code: code, message: message)
        }
        var actions: [String: LFSAction] = [:]
        switch entry["actions"] {
        case nil: break
        case .object(let members):
            for member in members where knownActions.contains(member.key) {
                switch action(member.value, receivedAt: receivedAt) {
                case .success(let action): actions[member.key] = action
                case .failure(let problem): return .refused(reason: "its '\(member.key)' action \(problem.reason)")
                }
            }
        default:
            return .refused(reason: "its 'actions' is not an object")
        }
        if operation == .download, actions["download"] == nil {
            return .refused(reason: "the server gave no download action and no error")
        }
        if operation == .upload, actions["upload"] == nil, actions["verify"] != nil {
            return .refused(reason: "the server asked to verify an upload it did not ask for")
        }
        return .actions(actions)
    }

    struct Problem: Error {
        let reason: String
    }

    /// One action, checked; `expires_in` counts from `receivedAt`.
    private static func action(_ value: JSONValue, receivedAt: Date) -> Result<LFSAction, Problem> {
        guard case .object = value else { return .failure(Problem(reason: "is not an object")) }
        guard case .string(let text) = value["href"] else { return .failure(Problem(reason: "has no 'href' string")) }
        guard let href = HTTPURL(text) else {
            return .failure(Problem(reason: "has an href that is not an http(s) URL without a user or password"))
        }
        var headers: [HTTPHeader] = []
        switch value["header"] {
        case nil: break
        case .object(let members):
            guard members.count <= maximumHeaders else {
                return .failure(Problem(reason: "has \(members.count) headers, over the \(maximumHeaders) taken"))
            }
            for member in members {
                guard case .string(let text) = member.value, let header = HTTPHeader(member.key, text) else {
                    return .failure(Problem(reason: "has a header '\(shown(member.key))' that is not a string a header can carry"))
                }
                guard !framingHeaders.contains(member.key.lowercased()) else {
                    return .failure(Problem(reason: "sets the header '\(member.key)', which the client sets itself"))
                }
                headers.append(header)
            }
        default:
            return .failure(Problem(reason: "has a 'header' that is not an object"))
        }
        var expiries: [Date] = []
        switch value["expires_in"] {
        case nil: break
        case .number(let text)?:
            // As git-lfs reads it: seconds from now, 0 for no limit; past a year, no limit.
            if let seconds = Double(text), seconds.isFinite, seconds != 0, seconds < 365 * 86_400 {
                expiries.append(receivedAt.addingTimeInterval(seconds))
            }
        default: return .failure(Problem(reason: "has an 'expires_in' that is not a number"))
        }
        switch value["expires_at"] {
        case nil: break
        case .string(let text)?:
            // RFC 3339; a time this client cannot read sets no limit (a 401 then asks again).
            if let date = expiryFormats.lazy.compactMap({ try? $0.parse(text) }).first { expiries.append(date) }
        default: return .failure(Problem(reason: "has an 'expires_at' that is not a string"))
        }
        return .success(LFSAction(href: href, headers: headers, expiresAt: expiries.min()))
    }

    /// The forms of `expires_at` read: RFC 3339 with and without fractions of a second.
    private static let expiryFormats: [Date.ISO8601FormatStyle] = [
        Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true),
    ]

    /// The actions of the basic transfer.
    private static let knownActions: Set<String> = ["upload", "verify", "download"]
    /// The most headers one action may ask for.
    static let maximumHeaders = 32
    /// Headers that frame a request, which the client sets (a server's value could
    /// desynchronize the connection or ask for bytes other than those the client expects).
    private static let framingHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "expect", "range", "te", "trailer", "upgrade",
        "keep-alive", "proxy-authorization", "proxy-connection",
    ]

    /// Server text fit for a message: at most 200 characters, control characters replaced.
    static func shown(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map {
            $0.value < 0x20 || $0.value == 0x7F ? "?" : $0
        }))
        return text.unicodeScalars.count > 200 ? cleaned + "…" : cleaned
    }
}
