import ForkStore
@testable import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Two transfers of one object into one asset folder (a fetch while a sync downloads, two
/// processes) take turns: the partial file's lock is held until the object is in place.
@Suite("Git LFS downloads lock the partial file")
struct LFSDownloadLockTests {
    /// While another transfer holds the object's partial file, a download waits; that
    /// transfer puts the object in place, and the download then finds it there and sends no
    /// GET.
    @Test func aDownloadWaitsForAnotherTransferOfTheSameObject() async throws {
        let bytes = Array(String(repeating: "locked bytes\n", count: 8_000).utf8)
        let object = AssetObject(id: assetID(of: bytes), size: bytes.count)
        let server = try LFSHostileServerTests.server(batch: {
            LFSHostileServerTests.answer([LFSHostileServerTests.entry(oid: object.id.hex, size: object.size, href: $0 + "/o")])
        }) { _ in
            TinyHTTPServer.response("200 OK", body: String(decoding: bytes, as: UTF8.self))
        }
        let lab = LFSLab()
        let folder = lab.assets("receiving")
        let partial = folder.partialPath(of: object.id)
        let held = try folder.openLockedPartial(partial)
        let transport = try LFSTransport(endpoint: server.url + "/org/repo")
        let downloading = Task { try await download(transport, [object], into: folder) }
        // The download asked the server about the object: it goes for the partial file next.
        while !server.requests.contains(where: { $0.requestLine.hasPrefix("POST ") }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let written = bytes.withUnsafeBytes { pwrite(held, $0.baseAddress, $0.count, 0) }
        #expect(written == bytes.count)
        try folder.commit(partial, as: object.id, size: object.size)
        close(held)
        _ = try await downloading.value
        #expect(folder.verify(object.id, size: object.size))
        #expect(!server.requests.contains { $0.requestLine.hasPrefix("GET ") }, "the download did not wait for the lock")
        #expect(lab.leftovers(in: folder).isEmpty)
    }
}
