import ForkStore
@testable import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ForkStoreLocks
import Testing

/// A Git LFS server that lies: a small HTTP server answers the batch request and the
/// downloads as each test says. Every lie is refused with its own failure, nothing appears in
/// the asset folder, nothing is written outside it, and no secret reaches a message.
@Suite("Git LFS transport against a hostile server")
struct LFSHostileServerTests {
    static let bytes = Array("the asset's true bytes\n".utf8)
    static let object = AssetObject(id: assetID(of: bytes), size: bytes.count)

    /// A batch answer about `entries` (JSON objects).
    static func answer(_ entries: [String]) -> String {
        TinyHTTPServer.response(
            "200 OK", headers: ["Content-Type: application/vnd.git-lfs+json"],
            body: #"{"transfer":"basic","objects":[\#(entries.joined(separator: ","))]}"#)
    }

    /// One object's entry with a download action.
    static func entry(oid: String = object.id.hex, size: Int = object.size, href: String, headers: String = "{}") -> String {
        #"{"oid":"\#(oid)","size":\#(size),"actions":{"download":{"href":"\#(href)","header":\#(headers)}}}"#
    }

    /// A server answering the batch with `batch` (given the server's own URL) and every GET
    /// with `get`.
    static func server(
        host: String = "127.0.0.1", trickle: @escaping @Sendable (TinyHTTPServer.Request) -> Duration = { _ in .zero },
        batch: @escaping @Sendable (String) -> String,
        get: @escaping @Sendable (TinyHTTPServer.Request) -> String = { _ in TinyHTTPServer.response("404 Not Found") }
    ) throws -> TinyHTTPServer {
        let own = Locked<String>("")
        let server = try TinyHTTPServer(host: host, trickle: trickle) { request in
            request.requestLine.hasPrefix("POST ") && request.requestLine.contains("/objects/batch")
                ? batch(own.withLock { $0 }) : get(request)
        }
        own.withLock { $0 = server.url }
        return server
    }

    /// Downloads the object from `server` into a fresh folder; returns the failure and the lab.
    static func downloadFailure(from server: TinyHTTPServer, username: String? = nil, password: String? = nil) async throws -> (
        (any Error)?, LFSLab
    ) {
        let lab = LFSLab()
        let transport = try LFSTransport(endpoint: server.url + "/org/repo", username: username, password: password)
        let folder = lab.assets("receiving")
        let error = await failure { try await download(transport, [object], into: folder) }
        #expect(folder.objects().isEmpty)
        return (error, lab)
    }

    @Test func wrongBytesOfTheRightSizeAreCorrupt() async throws {
        let server = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self).uppercased())
        }
        let (error, lab) = try await Self.downloadFailure(from: server)
        guard case .corrupt(let id, let reason) = error as? AssetTransferFailure else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(id == Self.object.id && reason.contains("hash"))
        #expect(lab.files().isEmpty)
    }

    @Test func moreBytesThanTheSizeAreCutOffAndCorrupt() async throws {
        let server = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self) + String(repeating: "more ", count: 100_000))
        }
        let (error, lab) = try await Self.downloadFailure(from: server)
        guard case .corrupt(_, let reason) = error as? AssetTransferFailure else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("more than its \(Self.object.size) bytes"))
        #expect(lab.files().isEmpty)
    }

    @Test func fewerBytesThanTheSizeAreCorrupt() async throws {
        let server = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("200 OK", body: "the asset")
        }
        let (error, lab) = try await Self.downloadFailure(from: server)
        guard case .corrupt = error as? AssetTransferFailure else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(lab.files().isEmpty)
    }

    /// Hrefs that are not http(s), or carry credentials of their own, are refused before any
    /// request is made.
    @Test func hrefsThatAreNotHTTPOrCarryCredentialsAreRefused() async throws {
        for href in ["file:///etc/passwd", "ftp://127.0.0.1/o", "gopher://127.0.0.1/o", "http://user:pw@127.0.0.1:1/o", "/relative/path", "http://", "http://127.0.0.1:1/o\u{0}x"] {
            let escaped = href.replacingOccurrences(of: "\u{0}", with: "\\u0000")
            let server = try Self.server(batch: { _ in Self.answer([Self.entry(href: escaped)]) })
            let (error, lab) = try await Self.downloadFailure(from: server)
            guard case .refused(let id, let reason) = error as? AssetTransferFailure else {
                Issue.record("\(href): expected refused, got \(String(describing: error))")
                continue
            }
            #expect(id == Self.object.id && reason.contains("href"), "\(href)")
            #expect(server.requests.count == 1, "\(href): only the batch request")
            #expect(lab.files().isEmpty)
        }
    }

    @Test func anAnswerAboutAnotherObjectOrAnotherSizeIsRefused() async throws {
        let other = assetID(of: Array("another object".utf8))
        let cases: [(String, String)] = [
            ("does not mention", Self.entry(oid: other.hex, size: 14, href: "HREF")),
            ("answered about 99 bytes", Self.entry(size: 99, href: "HREF")),
            ("2 times", Self.entry(href: "HREF") + "," + Self.entry(href: "HREF")),
            ("no download action", #"{"oid":"\#(Self.object.id.hex)","size":\#(Self.object.size),"actions":{"upload":{"href":"HREF"}}}"#),
        ]
        for (expected, entries) in cases {
            let server = try Self.server(batch: { Self.answer([entries.replacingOccurrences(of: "HREF", with: $0 + "/o")]) }) { _ in
                TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
            }
            let (error, lab) = try await Self.downloadFailure(from: server)
            guard case .refused(_, let reason) = error as? AssetTransferFailure else {
                Issue.record("expected refused, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains(expected), "\(reason)")
            #expect(server.requests.count == 1, "nothing downloaded")
            #expect(lab.files().isEmpty)
        }
    }

    @Test func headersAServerMayNotSetAreRefused() async throws {
        for headers in [#"{"X-Evil":"a\r\nInjected: 1"}"#, #"{"Content-Length":"1"}"#, #"{"Host":"elsewhere"}"#, #"{"Bad Name":"x"}"#, #"{"X-Number":1}"#] {
            let server = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o", headers: headers)]) })
            let (error, _) = try await Self.downloadFailure(from: server)
            guard case .refused(_, let reason) = error as? AssetTransferFailure else {
                Issue.record("\(headers): expected refused, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("header"), "\(reason)")
            #expect(server.requests.count == 1)
        }
    }

    @Test func aHugeOrMalformedBatchAnswerFailsTheTransfer() async throws {
        let huge = try Self.server(batch: { _ in
            TinyHTTPServer.response("200 OK", body: #"{"objects":[],"padding":""# + String(repeating: "x", count: 3 << 20) + #""}"#)
        })
        let (error, _) = try await Self.downloadFailure(from: huge)
        guard case .transport(let reason) = error as? TransferFailure else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("ran past"), "\(reason)")

        for body in ["<html>not json</html>", #"{"objects":{}}"#, #"{"objects":[{"oid":"x","size":1}]}"#, #"{"transfer":"ssh","objects":[]}"#, "[]", #"{"objects":[{"oid":"\#(Self.object.id.hex)","size":-1}]}"#] {
            let server = try Self.server(batch: { _ in TinyHTTPServer.response("200 OK", body: body) })
            let (error, lab) = try await Self.downloadFailure(from: server)
            guard case .corruptData = error as? TransferFailure else {
                Issue.record("\(body): expected corruptData, got \(String(describing: error))")
                continue
            }
            #expect(lab.files().isEmpty)
        }
    }

    /// A batch request's redirect to another host is refused, and that host hears nothing; a
    /// redirect on the same origin is followed.
    @Test func redirectsToAnotherHostAreRefusedAndSameOriginOnesFollowed() async throws {
        let elsewhere = try TinyHTTPServer(host: "127.0.0.2") { _ in TinyHTTPServer.response("200 OK", body: "{}") }
        let away = try Self.server(batch: { _ in
            TinyHTTPServer.response("307 Temporary Redirect", headers: ["Location: \(elsewhere.url)/org/repo/objects/batch"])
        })
        let (error, _) = try await Self.downloadFailure(from: away, username: "tester", password: "redirect-Pa55")
        guard case .redirectRefused(let reason) = error as? TransferFailure else {
            Issue.record("expected redirectRefused, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("127.0.0.2"))
        #expect(elsewhere.requests.isEmpty)

        // Same origin: the batch request moves to another path, keeping its body.
        let moved = try TinyHTTPServer { request in
            if request.requestLine.hasPrefix("POST /old/") {
                return TinyHTTPServer.response("307 Temporary Redirect", headers: ["Location: /new/objects/batch"])
            }
            if request.requestLine.hasPrefix("POST /new/") {
                let port = request.headers["host"] ?? ""
                return Self.answer([Self.entry(href: "http://\(port)/o")])
            }
            return TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let lab = LFSLab()
        let folder = lab.assets("receiving")
        try await download(try LFSTransport(endpoint: moved.url + "/old"), [Self.object], into: folder)
        #expect(folder.verify(Self.object.id, size: Self.object.size))
        #expect(moved.requests.map { String($0.requestLine.prefix(9)) } == ["POST /old", "POST /new", "GET /o HT"])
        #expect(moved.requests[1].body == moved.requests[0].body)
    }

    /// A download's GET follows a redirect to storage on another origin (as GitLab's object
    /// storage answers), with neither the credentials nor the action's headers; an upload's
    /// PUT redirected there is refused, and more than 3 hops are not followed.
    @Test func aDownloadFollowsARedirectToStorageElsewhereWithoutCredentials() async throws {
        let storage = try TinyHTTPServer(host: "127.0.0.2") { request in
            if request.requestLine.hasPrefix("GET /loop") {
                return TinyHTTPServer.response("302 Found", headers: ["Location: /loop"])
            }
            return TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let lfs = try Self.server(batch: {
            Self.answer([Self.entry(href: $0 + "/o", headers: #"{"X-Action-Token":"action-secret-77"}"#)])
        }) { _ in
            TinyHTTPServer.response("302 Found", headers: ["Location: \(storage.url)/bucket/o?signature=1"])
        }
        let lab = LFSLab()
        let folder = lab.assets("receiving")
        let transport = try LFSTransport(endpoint: lfs.url + "/org/repo", username: "tester", password: "storage-Pa55")
        try await download(transport, [Self.object], into: folder)
        #expect(folder.verify(Self.object.id, size: Self.object.size))
        let fetched = try #require(storage.requests.first)
        #expect(fetched.requestLine.hasPrefix("GET /bucket/o?signature=1 "))
        #expect(fetched.authorization == nil && fetched.headers["x-action-token"] == nil, "\(fetched.headers)")
        #expect(lfs.requests.last?.authorization != nil, "the endpoint's own origin gets the credentials")

        // Storage that keeps redirecting: not followed past 3 hops.
        let looping = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("302 Found", headers: ["Location: \(storage.url)/loop"])
        }
        let (error, _) = try await Self.downloadFailure(from: looping)
        guard case .transport(let reason) = error as? TransferFailure else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("redirects"))

        // An upload's PUT redirected to another origin is refused; storage hears nothing more.
        let before = storage.requests.count
        let uploads = try Self.server(batch: { own in
            TinyHTTPServer.response(
                "200 OK", headers: ["Content-Type: application/vnd.git-lfs+json"],
                body: #"{"objects":[{"oid":"\#(Self.object.id.hex)","size":\#(Self.object.size),"actions":{"upload":{"href":"\#(own)/u"}}}]}"#)
        }) { _ in
            TinyHTTPServer.response("307 Temporary Redirect", headers: ["Location: \(storage.url)/bucket/u"])
        }
        let sending = lab.assets("sending")
        try lab.add(Self.bytes, to: sending)
        let uploadError = await failure {
            _ = try await upload(try LFSTransport(endpoint: uploads.url + "/org/repo"), [Self.object], from: sending)
        }
        guard case .redirectRefused = uploadError as? TransferFailure else {
            Issue.record("expected redirectRefused, got \(String(describing: uploadError))")
            return
        }
        #expect(storage.requests.count == before)
    }

    /// Credentials go to the endpoint's origin only: to a same-origin href without an
    /// Authorization of its own, never to another origin, and an action's own Authorization
    /// replaces them.
    @Test func credentialsGoToTheEndpointsOriginOnly() async throws {
        let password = "origin-Pa55-2718"
        let others = try TinyHTTPServer(host: "127.0.0.2") { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let ownHref = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let otherHref = try Self.server(batch: { _ in Self.answer([Self.entry(href: others.url + "/o")]) })
        let ownToken = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o", headers: #"{"Authorization":"Bearer server-token"}"#)]) }) { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        for server in [ownHref, otherHref, ownToken] {
            let lab = LFSLab()
            let folder = lab.assets("receiving")
            let transport = try LFSTransport(endpoint: server.url + "/org/repo", username: "tester", password: password)
            try await download(transport, [Self.object], into: folder)
            #expect(folder.verify(Self.object.id, size: Self.object.size))
        }
        let basic = "Basic " + Data("tester:\(password)".utf8).base64EncodedString()
        #expect(ownHref.requests.map(\.authorization) == [basic, basic])
        #expect(otherHref.requests.map(\.authorization) == [basic])
        #expect(others.requests.map(\.authorization) == [nil])
        #expect(ownToken.requests.map(\.authorization) == [basic, "Bearer server-token"])
    }

    /// What a server echoes back (the password, in basic authentication's base64 too, an
    /// action's token, an href's query) never reaches a message.
    @Test func noSecretReachesAMessage() async throws {
        let password = "echoed-Pa55-31415"
        let basic = Data("tester:\(password)".utf8).base64EncodedString()
        let refusing = try Self.server(batch: { _ in
            TinyHTTPServer.response("401 Unauthorized", body: #"{"message":"bad credentials: \#(password) Basic \#(basic)"}"#)
        })
        let (error, _) = try await Self.downloadFailure(from: refusing, username: "tester", password: password)
        guard case .authentication(let reason) = error as? TransferFailure else {
            Issue.record("expected authentication, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("(hidden)"))
        #expect(!reason.contains(password) && !reason.contains(basic), "\(reason)")

        let token = "server-secret-token-8080"
        let echoing = try Self.server(batch: {
            Self.answer([Self.entry(href: $0 + "/o?sig=query-secret-4242", headers: #"{"Authorization":"Bearer \#(token)"}"#)])
        }) { request in
            TinyHTTPServer.response(
                "400 Bad Request", body: #"{"message":"refusing \#(request.authorization ?? "") for \#(request.requestLine)"}"#)
        }
        let (error2, lab) = try await Self.downloadFailure(from: echoing, username: "tester", password: password)
        guard case .refused(_, let reason2) = error2 as? AssetTransferFailure else {
            Issue.record("expected refused, got \(String(describing: error2))")
            return
        }
        #expect(reason2.contains("400"))
        for secret in [token, "query-secret-4242", password, basic] {
            #expect(!reason2.contains(secret), "\(reason2)")
        }
        #expect(lab.files().isEmpty)
    }

    /// A 206 whose Content-Range is not the range asked for is refused, and the partial file
    /// with it.
    @Test func aPartialAnswerForAnotherRangeIsRefused() async throws {
        let server = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response(
                "206 Partial Content", headers: ["Content-Range: bytes 0-\(Self.object.size - 1)/\(Self.object.size)"],
                body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let lab = LFSLab()
        let folder = lab.assets("receiving")
        try FileManager.default.createDirectory(atPath: folder.root + "/tmp", withIntermediateDirectories: true)
        try Data(Self.bytes.prefix(5)).write(to: URL(fileURLWithPath: folder.partialPath(of: Self.object.id)))
        let error = await failure { try await download(try LFSTransport(endpoint: server.url + "/org/repo"), [Self.object], into: folder) }
        guard case .refused(_, let reason) = error as? AssetTransferFailure else {
            Issue.record("expected refused, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Content-Range"))
        #expect(server.requests.last?.headers["range"] == "bytes=5-")
        #expect(lab.files().isEmpty)
    }

    /// A server that takes the connection and never answers fails the transfer as unreachable
    /// once no byte has moved for the read timeout; cancelling stops a transfer at once.
    @Test func aSilentServerTimesOutAndCancellingStops() async throws {
        // A socket that listens and never accepts: the kernel completes the connection, the
        // request is sent, and no answer ever comes.
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, length) == 0 && listen(silent, 4) == 0 && getsockname(silent, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let lab = LFSLab()
        let slow = try LFSTransport(endpoint: "http://127.0.0.1:\(port)/org/repo", readTimeout: .seconds(1))
        let error = await failure { try await download(slow, [Self.object], into: lab.assets("a")) }
        guard case .unreachable = error as? TransferFailure else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }

        let server = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let cancelled = try LFSTransport(endpoint: server.url + "/org/repo", isCancelled: { true })
        let error2 = await failure { try await download(cancelled, [Self.object], into: lab.assets("b")) }
        #expect(error2 is CancellationError, "\(String(describing: error2))")
        #expect(lab.files().isEmpty)
    }

    /// The batch endpoint's status sorts the failure of the whole transfer, but for a
    /// download's 404 and 422, which speak of its objects (missing; another size on the server:
    /// corrupt); an action's 5xx fails it too (the object is not to blame), its 403 is access
    /// denied.
    @Test func statusesSortTheFailure() async throws {
        let cases: [(String, (TransferFailure) -> Bool)] = [
            ("401 Unauthorized", { if case .authentication = $0 { true } else { false } }),
            ("403 Forbidden", { if case .accessDenied = $0 { true } else { false } }),
            ("404 Not Found", { if case .notARepository = $0 { true } else { false } }),  // of an upload
            ("503 Service Unavailable", { if case .transport = $0 { true } else { false } }),
            ("422 Unprocessable Entity", { if case .transport = $0 { true } else { false } }),
        ]
        for (status, expected) in cases {
            let batch = try Self.server(batch: { _ in TinyHTTPServer.response(status, body: #"{"message":"no"}"#) })
            let (error, _) = try await Self.downloadFailure(from: batch)
            if status.hasPrefix("404") {
                #expect(error as? AssetTransferFailure == .missingOnRemote(Self.object.id), "\(String(describing: error))")
            } else if status.hasPrefix("422") {
                #expect(error as? AssetTransferFailure == .corrupt(Self.object.id, reason: "the server answered 422 about it: no"))
            } else {
                #expect((error as? TransferFailure).map(expected) == true, "\(status): \(String(describing: error))")
            }
            // An upload's batch answered so fails the whole transfer.
            let sending = LFSLab()
            let folder = sending.assets("sending")
            let object = try sending.add(Self.bytes, to: folder)
            let uploading = try LFSTransport(endpoint: batch.url + "/org/repo")
            let refused = await failure { _ = try await upload(uploading, [object], from: folder) }
            #expect((refused as? TransferFailure).map(expected) == true, "\(status): \(String(describing: refused))")
            let action = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
                TinyHTTPServer.response(status, body: "no")
            }
            let (error2, lab) = try await Self.downloadFailure(from: action)
            if status.hasPrefix("404") {
                #expect(error2 as? AssetTransferFailure == .missingOnRemote(Self.object.id))
            } else if status.hasPrefix("422") {
                guard case .refused = error2 as? AssetTransferFailure else {
                    Issue.record("\(status): \(String(describing: error2))")
                    continue
                }
            } else {
                #expect((error2 as? TransferFailure).map(expected) == true, "\(status): \(String(describing: error2))")
            }
            #expect(lab.files().isEmpty)
        }
    }

    /// A 422 to a batch request about several objects (the Git LFS API: "validation error
    /// with one or more of the objects") asks again about each alone: the one the server has
    /// comes, the other fails as corrupt, and the transfer throws that failure at the end.
    @Test func a422AboutSeveralObjectsIsAskedAgainOneByOne() async throws {
        let other = Array("another object, whose size the server disputes\n".utf8)
        let disputed = AssetObject(id: assetID(of: other), size: other.count)
        let own = Locked<String>("")
        let server = try TinyHTTPServer { request in
            guard request.requestLine.hasPrefix("POST ") else {
                return TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
            }
            let body = String(decoding: request.body, as: UTF8.self)
            guard body.contains(Self.object.id.hex) else {
                return TinyHTTPServer.response("422 Unprocessable Entity", body: #"{"message":"size does not match"}"#)
            }
            if body.contains(disputed.id.hex) { return TinyHTTPServer.response("422 Unprocessable Entity", body: "{}") }
            return Self.answer([Self.entry(href: own.withLock { $0 } + "/o")])
        }
        own.withLock { $0 = server.url }
        let lab = LFSLab()
        let folder = lab.assets("receiving")
        let transport = try LFSTransport(endpoint: server.url + "/org/repo")
        let error = await failure { try await download(transport, [disputed, Self.object], into: folder) }
        #expect(error as? AssetTransferFailure == .corrupt(disputed.id, reason: "the server answered 422 about it: size does not match"))
        #expect(folder.contains(Self.object.id, size: Self.object.size))
        #expect(!folder.contains(disputed.id, size: disputed.size) && lab.leftovers(in: folder).isEmpty)
        // The pair, then each alone, then the download.
        #expect(server.requests.map { String($0.requestLine.prefix(4)) } == ["POST", "POST", "POST", "GET "])
    }

    /// A 5xx is asked again twice (100 and 400 ms later): a batch request and a download that
    /// fail once succeed; a download that keeps failing fails the transfer after three tries.
    @Test func aServersPassingFailureIsAskedAgain() async throws {
        let failures = Locked([String: Int]())
        let flaky = try Self.server(batch: { url in
            let first = failures.withLock { counts -> Bool in
                counts["batch", default: 0] += 1
                return counts["batch"] == 1
            }
            return first ? TinyHTTPServer.response("502 Bad Gateway", body: "busy") : Self.answer([Self.entry(href: url + "/o")])
        }) { _ in
            let first = failures.withLock { counts -> Bool in
                counts["get", default: 0] += 1
                return counts["get"] == 1
            }
            return first
                ? TinyHTTPServer.response("500 Internal Server Error", body: "File exists")
                : TinyHTTPServer.response("200 OK", body: String(decoding: Self.bytes, as: UTF8.self))
        }
        let lab = LFSLab()
        let folder = lab.assets("receiving")
        try await download(try LFSTransport(endpoint: flaky.url + "/org/repo"), [Self.object], into: folder)
        #expect(folder.verify(Self.object.id, size: Self.object.size))
        #expect(flaky.requests.map { String($0.requestLine.prefix(4)) } == ["POST", "POST", "GET ", "GET "])

        let broken = try Self.server(batch: { Self.answer([Self.entry(href: $0 + "/o")]) }) { _ in
            TinyHTTPServer.response("503 Service Unavailable", body: "down")
        }
        let (error, _) = try await Self.downloadFailure(from: broken)
        guard case .transport(let reason) = error as? TransferFailure else {
            Issue.record("expected transport, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("503"))
        #expect(broken.requests.filter { $0.requestLine.hasPrefix("GET ") }.count == 3)
    }
}
