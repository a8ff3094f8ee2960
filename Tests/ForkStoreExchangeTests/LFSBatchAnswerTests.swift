import ForkStore
@testable import ForkStoreExchange
import Foundation
import Testing

/// The batch answer parser, a parser of outside bytes: the shapes it takes, and malformed
/// answers refused whole (``LFSBatchAnswer/Malformed``) or per object (`.refused`).
@Suite("Git LFS batch answers")
struct LFSBatchAnswerTests {
    static let a = AssetObject(id: assetID(of: Array("a".utf8)), size: 1)
    static let b = AssetObject(id: assetID(of: Array("b".utf8)), size: 1)
    static let download = LFSBatchRequest(.download, [a, b])
    static let upload = LFSBatchRequest(.upload, [a, b])

    static func parse(_ text: String, _ request: LFSBatchRequest = download) throws(LFSBatchAnswer.Malformed) -> LFSBatchAnswer {
        try LFSBatchAnswer(parsing: Array(text.utf8), for: request)
    }

    static func action(_ name: String, href: String = "https://lfs.example/o", extra: String = "") -> String {
        #"{"\#(name)":{"href":"\#(href)"\#(extra)}}"#
    }

    static func entry(_ object: AssetObject, size: Int? = nil, _ rest: String) -> String {
        #"{"oid":"\#(object.id.hex)","size":\#(size ?? object.size)\#(rest.isEmpty ? "" : "," + rest)}"#
    }

    static func answer(_ entries: String...) -> String {
        #"{"transfer":"basic","objects":[\#(entries.joined(separator: ","))],"future":{"ignored":true}}"#
    }

    @Test func theRequestIsTheBatchAPIsJSON() throws {
        let value = try JSONValue(parsing: Self.download.body)
        #expect(value["operation"] == .string("download"))
        #expect(value["transfers"] == .array([.string("basic")]))
        #expect(value["objects"] == .array([
            .object([.init(key: "oid", value: .string(Self.a.id.hex)), .init(key: "size", value: .number("1"))]),
            .object([.init(key: "oid", value: .string(Self.b.id.hex)), .init(key: "size", value: .number("1"))]),
        ]))
    }

    @Test func downloadsUploadsAndErrorsAreRead() throws {
        let answer = try Self.parse(Self.answer(
            Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","header":{"Authorization":"Bearer t","X-A":"b\tc"},"expires_in":900,"expires_at":"2030-01-01T00:00:00Z""#)),"authenticated":true"#),
            Self.entry(Self.b, #""error":{"code":404,"message":"Object does not exist"}"#)))
        guard case .actions(let actions) = answer.objects[Self.a.id], let download = actions["download"] else {
            Issue.record("\(answer)")
            return
        }
        #expect(download.href.text == "https://lfs.example/o")
        #expect(download.headers.map(\.name) == ["Authorization", "X-A"])
        #expect(answer.objects[Self.b.id] == .error(code: 404, message: "Object does not exist"))

        let upload = try Self.parse(Self.answer(
            Self.entry(Self.a, #""actions":{"upload":{"href":"http://h/u"},"verify":{"href":"http://h/v"}}"#),
            Self.entry(Self.b, "")), Self.upload)
        guard case .actions(let uploadActions) = upload.objects[Self.a.id] else {
            Issue.record("\(upload)")
            return
        }
        #expect(Set(uploadActions.keys) == ["upload", "verify"])
        #expect(upload.objects[Self.b.id] == .actions([:]), "no actions: the server has it")
        // An answer without "transfer" is basic; objects not asked about are ignored.
        let other = AssetObject(id: assetID(of: Array("c".utf8)), size: 1)
        let quiet = try Self.parse(#"{"objects":[\#(Self.entry(Self.a, "")),\#(Self.entry(Self.b, "")),\#(Self.entry(other, ""))]}"#, Self.upload)
        #expect(quiet.objects.count == 2)
    }

    /// `expires_in` counts from the answer's arrival, `expires_at` is RFC 3339 (with or
    /// without fractions); the earlier wins; 0, a year or more, or a time this client cannot
    /// read set no limit.
    @Test func expiriesAreReadAsGitLFSReadsThem() throws {
        func expiry(_ extra: String) throws -> Date? {
            guard case .actions(let actions)? = try Self.parse(Self.answer(Self.entry(Self.a, #""actions":"# + Self.action("download", extra: extra)))).objects[Self.a.id]
            else { return nil }
            return actions["download"]?.expiresAt
        }
        let now = Date()
        let inAMinute = try #require(try expiry(#","expires_in":60"#))
        #expect(abs(inAMinute.timeIntervalSince(now) - 60) < 5)
        #expect(try expiry(#","expires_in":0"#) == nil)
        #expect(try expiry(#","expires_in":31536000"#) == nil)
        #expect(try expiry("") == nil)
        let at = try #require(try expiry(#","expires_at":"2030-01-02T03:04:05Z""#))
        #expect(at == Date(timeIntervalSince1970: 1_893_553_445))
        let fractional = try #require(try expiry(#","expires_at":"2030-01-02T03:04:05.500Z""#))
        #expect(fractional.timeIntervalSince1970 == 1_893_553_445.5)
        #expect(try expiry(#","expires_at":"next tuesday""#) == nil)
        let earlier = try #require(try expiry(#","expires_in":60,"expires_at":"2001-01-01T00:00:00Z""#))
        #expect(earlier == Date(timeIntervalSince1970: 978_307_200))
        #expect(LFSAction(href: try #require(HTTPURL("https://lfs.example/o")), headers: [], expiresAt: now.addingTimeInterval(3)).expires(within: 5, now: now))
        #expect(!LFSAction(href: try #require(HTTPURL("https://lfs.example/o")), headers: [], expiresAt: now.addingTimeInterval(30)).expires(within: 5, now: now))
    }

    @Test func malformedAnswersAreRefusedWhole() {
        let cases = [
            "", "null", "[]", "<html>", #"{"objects":{}}"#, #"{"objects":[1]}"#, #"{"transfer":"tus","objects":[]}"#,
            #"{"transfer":1,"objects":[]}"#, #"{"objects":[{"oid":"\#(Self.a.id.hex.uppercased())","size":1}]}"#,
            #"{"objects":[{"oid":"sha256:\#(Self.a.id.hex)","size":1}]}"#, #"{"objects":[{"oid":"\#(Self.a.id.hex)","size":"1"}]}"#,
            #"{"objects":[{"oid":"\#(Self.a.id.hex)","size":1.5}]}"#, #"{"objects":[{"oid":"\#(Self.a.id.hex)","size":-1}]}"#,
            #"{"objects":[{"oid":"\#(Self.a.id.hex)","size":1e400}]}"#, #"{"objects":[],"objects":[]}"#,
            String(repeating: "[", count: 100_000), #"{"objects":[]} trailing"#,
        ]
        for text in cases {
            #expect(throws: LFSBatchAnswer.Malformed.self, "\(text.prefix(80))") { try Self.parse(text) }
        }
        // Too large: refused before it is parsed.
        let huge = #"{"objects":[],"pad":""# + String(repeating: "x", count: LFSBatchRequest.answerLimit(objects: 2)) + #""}"#
        #expect(throws: LFSBatchAnswer.Malformed.self) { try Self.parse(huge) }
    }

    @Test func anObjectAnsweredWronglyIsRefusedAlone() throws {
        let refusals: [(String, String)] = [
            (Self.entry(Self.a, size: 2, #""actions":\#(Self.action("download"))"#), "2 bytes"),
            (Self.entry(Self.a, #""actions":{"upload":{"href":"http://h/u"}}"#), "no download action"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", href: "file:///etc/passwd"))"#), "href"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", href: "http://u:p@h/o"))"#), "href"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", href: "http://h/a b"))"#), "href"),
            (Self.entry(Self.a, #""actions":{"download":{"href":1}}"#), "href"),
            (Self.entry(Self.a, #""actions":{"download":"http://h/o"}"#), "not an object"),
            (Self.entry(Self.a, #""actions":[]"#), "not an object"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","header":{"X":1}"#))"#), "header"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","header":{"X":"a\nb"}"#))"#), "header"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","header":{"Range":"bytes=0-"}"#))"#), "Range"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","header":[]"#))"#), "header"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","expires_in":"soon""#))"#), "expires_in"),
            (Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","expires_at":1"#))"#), "expires_at"),
            (Self.entry(Self.a, #""error":{"code":"404"}"#), "code"),
            (Self.entry(Self.a, #""error":{"code":404,"message":7}"#), "message"),
            (Self.entry(Self.a, #""error":"gone""#), "code"),
            (Self.entry(Self.a, "") + "," + Self.entry(Self.a, ""), "2 times"),
        ]
        for (entry, expected) in refusals {
            let answer = try Self.parse(Self.answer(entry, Self.entry(Self.b, #""actions":\#(Self.action("download"))"#)))
            guard case .refused(let reason) = answer.objects[Self.a.id] else {
                Issue.record("\(entry): \(String(describing: answer.objects[Self.a.id]))")
                continue
            }
            #expect(reason.contains(expected), "\(entry): \(reason)")
            guard case .actions = answer.objects[Self.b.id] else {
                Issue.record("the other object is refused too: \(entry)")
                continue
            }
        }
        let tooMany = (0...LFSBatchAnswer.maximumHeaders).map { #""X-\#($0)":"v""# }.joined(separator: ",")
        let answer = try Self.parse(Self.answer(Self.entry(Self.a, #""actions":\#(Self.action("download", extra: #","header":{\#(tooMany)}"#))"#)))
        guard case .refused(let reason) = answer.objects[Self.a.id] else {
            Issue.record("\(answer)")
            return
        }
        #expect(reason.contains("headers"))
        #expect(answer.objects[Self.b.id] == .refused(reason: "the server's answer does not mention it"))
        // A server's message is shown short and without control characters.
        let noisy = try Self.parse(Self.answer(Self.entry(Self.a, #""error":{"code":500,"message":"\u001b[31mred\u001b[0m\#(String(repeating: "!", count: 500))"}"#)))
        guard case .error(500, let message) = noisy.objects[Self.a.id] else {
            Issue.record("\(noisy)")
            return
        }
        #expect(!message.contains("\u{1B}") && message.count <= 201)
    }

    @Test func contentRangesAreReadStrictly() {
        let range = HTTPTransferState.contentRange("bytes 5-22/23")
        #expect(range?.first == 5 && range?.last == 22 && range?.total == 23)
        let open = HTTPTransferState.contentRange("bytes 0-0/*")
        #expect(open?.first == 0 && open?.last == 0 && open.map { $0.total == nil } == true)
        for bad in ["bytes 5-22/22", "bytes 22-5/23", "bytes -5-22/23", "bytes 5-22", "items 5-22/23", "bytes 5-22/2x", "bytes  5-22/23", "bytes 5-99999999999999999999/*"] {
            #expect(HTTPTransferState.contentRange(bad) == nil, "\(bad)")
        }
    }

    @Test func urlsAreReadAsCurlReadsThemWithTheirOrigin() throws {
        let url = try #require(HTTPURL("HTTP://Example.COM/a/b?token=1#f"))
        #expect(url.origin.scheme == "http" && url.origin.host == "example.com" && url.origin.port == 80)
        #expect(url.redacted == "http://example.com/a/b?…")
        #expect(HTTPURL("https://example.com:443/")?.origin == HTTPURL("https://example.com/x")?.origin)
        #expect(HTTPURL("https://example.com:8443/")?.origin != HTTPURL("https://example.com/x")?.origin)
        #expect(HTTPURL("http://example.com/")?.origin != HTTPURL("https://example.com/")?.origin)
        for bad in ["file:///etc/passwd", "ftp://h/x", "http://user@h/x", "http://u:p@h/x", "//h/x", "/x", "http://h/a b", "http://h/\r\nX: y", "http://h:99999/"] {
            #expect(HTTPURL(bad) == nil, "\(bad)")
        }
        let base = try #require(HTTPURL("http://h:8080/org/repo/objects/batch"))
        #expect(base.resolving("/other/objects/batch")?.text == "http://h:8080/other/objects/batch")
        #expect(base.resolving("http://elsewhere/x")?.origin.host == "elsewhere")
        #expect(base.resolving("file:///etc/passwd") == nil)
    }
}
