import ForkStore
@testable import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import ForkStoreLocks
import Testing

/// A server that trickles its answers holds a transfer (and the sync lock) only so long: a
/// body must average 1 KiB a second over the read timeout, and a batch must end by its
/// deadline. Before, 1 byte a second kept a request going.
@Suite("Git LFS transport against a slow server")
struct LFSSlowServerTests {
    /// A batch answer at 50 bytes a second (some 5 seconds in all) fails as unreachable.
    @Test func aTricklingBatchAnswerFailsAsUnreachable() async throws {
        // Once the answer is in, the GET finds nothing: only the batch's slowness can make
        // this transfer unreachable.
        let server = try LFSHostileServerTests.server(
            trickle: { $0.requestLine.hasPrefix("POST ") ? .milliseconds(20) : .zero },
            batch: { LFSHostileServerTests.answer([LFSHostileServerTests.entry(href: $0 + "/o")]) })
        let lab = LFSLab()
        let transport = try LFSTransport(endpoint: server.url + "/org/repo", readTimeout: .seconds(3))
        let error = await failure { try await download(transport, [LFSHostileServerTests.object], into: lab.assets("a")) }
        guard case .unreachable(let reason) = error as? TransferFailure else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(!reason.isEmpty)
        #expect(server.requests.count == 1, "no GET after a batch that never ended")
    }

    /// A download's body at 100 bytes a second (10 seconds for this object) fails as
    /// unreachable; nothing is moved into place.
    @Test func aTricklingDownloadFailsAsUnreachable() async throws {
        let bytes = Array(String(repeating: "slow\n", count: 200).utf8)
        let object = AssetObject(id: assetID(of: bytes), size: bytes.count)
        let own = Locked<String>("")
        let server = try TinyHTTPServer(trickle: { $0.requestLine.hasPrefix("GET ") ? .milliseconds(10) : .zero }) { request in
            guard request.requestLine.hasPrefix("GET ") else {
                return LFSHostileServerTests.answer([
                    LFSHostileServerTests.entry(oid: object.id.hex, size: object.size, href: own.withLock { $0 } + "/o")
                ])
            }
            return TinyHTTPServer.response("200 OK", body: String(decoding: bytes, as: UTF8.self))
        }
        own.withLock { $0 = server.url }
        let lab = LFSLab()
        let folder = lab.assets("a")
        let transport = try LFSTransport(endpoint: server.url + "/org/repo", readTimeout: .seconds(3))
        let error = await failure { try await download(transport, [object], into: folder) }
        guard case .unreachable = error as? TransferFailure else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(!folder.contains(object.id, size: object.size))
    }

    @Test func smallExchangesHaveADeadlineOfTwiceTheReadTimeout() {
        #expect(HTTPClient(readTimeout: .seconds(60)).smallExchangeDeadline == .seconds(120))
        #expect(HTTPClient.minimumRate == 1024)
    }
}
