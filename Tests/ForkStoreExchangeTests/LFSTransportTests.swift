import ForkStore
@testable import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// The Git LFS transport against a real Git LFS server: giftless behind waitress, alone
/// (anonymous, with its own tokens in every action), and behind lighttpd with basic
/// authentication, over http and https.
@Suite("Git LFS transport against giftless")
struct LFSTransportTests {
    @Test func uploadsThenDownloadsWithBytesCheckedAndSkipsWhatTheServerHas() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let contents = [pseudoRandomBytes(3 << 20, seed: 1), pseudoRandomBytes(1000, seed: 2), Array("hello\n".utf8)]
        let objects = try contents.map { try lab.add($0, to: sending) }
        let transport = try LFSTransport(endpoint: server.endpoint())

        let (sent, progress) = try await upload(transport, objects + [objects[0]], from: sending)
        #expect(sent == 3)
        for (object, bytes) in zip(objects, contents) {
            #expect(progress[object.id] == object.size)
            // giftless keeps what it received under the oid: the same bytes.
            let stored = try #require(FileManager.default.contents(atPath: server.storedPath(object.id.hex)))
            #expect(Array(stored) == bytes)
        }
        // The server has them all now: nothing is sent again.
        #expect(try await upload(transport, objects, from: sending).sent == 0)

        let receiving = lab.assets("receiving")
        let seen = try await download(transport, objects, into: receiving)
        for object in objects {
            #expect(receiving.verify(object.id, size: object.size))
            #expect(seen[object.id] == object.size)
        }
        #expect(receiving.objects() == objects.map(\.id).sorted())
        #expect(lab.leftovers(in: receiving).isEmpty)
        // Present already: no request at all (the server is stopped, and the call succeeds).
        server.stop()
        try await download(transport, objects, into: receiving)
    }

    @Test func anObjectTheServerLacksIsMissingOnRemoteAndTheOthersStillArrive() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let present = try lab.add(pseudoRandomBytes(5000, seed: 3), to: sending)
        let transport = try LFSTransport(endpoint: server.endpoint())
        _ = try await upload(transport, [present], from: sending)

        let absent = AssetObject(id: assetID(of: Array("never uploaded".utf8)), size: 14)
        let receiving = lab.assets("receiving")
        let error = await failure { try await download(transport, [absent, present], into: receiving) }
        #expect(error as? AssetTransferFailure == .missingOnRemote(absent.id))
        #expect(receiving.objects() == [present.id])
        #expect(receiving.verify(present.id, size: present.size))

        // Sending what is not in the folder is refused before any request.
        let error2 = await failure { _ = try await upload(transport, [absent], from: sending) }
        #expect(error2 as? AssetTransferFailure == .missingLocally(absent.id))
    }

    @Test func anEndpointThatIsNoRepositoryOrNotListening() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let object = try lab.add([1], to: sending)
        // giftless has no route for a one-segment path: 404 on the batch endpoint, which an
        // upload reads as no repository there.
        let nowhere = try LFSTransport(endpoint: "http://127.0.0.1:\(server.port)/only-one-segment")
        let error = await failure { _ = try await upload(nowhere, [object], from: sending) }
        guard case .notARepository(let reason) = error as? TransferFailure else {
            Issue.record("expected notARepository, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("404"))
        // A download cannot tell it from giftless's 404 about objects it lacks (git-lfs:
        // "repository or object not found"): the object is missing.
        let error1 = await failure { try await download(nowhere, [object], into: lab.assets("a")) }
        #expect(error1 as? AssetTransferFailure == .missingOnRemote(object.id), "\(String(describing: error1))")

        let closed = try LFSTransport(endpoint: "http://127.0.0.1:\(try freePort())/org/repo", connectTimeout: .seconds(5))
        let error2 = await failure { try await download(closed, [object], into: lab.assets("b")) }
        guard case .unreachable = error2 as? TransferFailure else {
            Issue.record("expected unreachable, got \(String(describing: error2))")
            return
        }
        #expect(lab.files().allSatisfy { $0.hasPrefix("giftless/") || $0.hasPrefix("sending/") })
    }

    @Test func endpointsThatCannotBeUsedAreRefused() {
        for endpoint in ["ftp://example.com/x", "file:///tmp/x", "http://user:pw@example.com/x", "http://example.com/x?token=1", "not a url", ""] {
            #expect(throws: InvalidLFSEndpoint.self, "\(endpoint)") { try LFSTransport(endpoint: endpoint) }
        }
        #expect(throws: InvalidLFSEndpoint.self) { try LFSTransport(endpoint: "http://example.com/x", username: "u") }
        #expect((try? LFSTransport(endpoint: "https://example.com/org/repo.git/info/lfs/"))?.batchURL?.text == "https://example.com/org/repo.git/info/lfs/objects/batch")
    }

    /// Behind lighttpd's basic authentication, giftless's actions carry no token: the
    /// credentials go to the hrefs, which have the endpoint's origin. A wrong password or none
    /// fails as authentication, and the password is in no message.
    @Test func basicAuthenticationWithTheRightPasswordTheWrongOneAndNone() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"), authenticated: true)
        defer { server.stop() }
        let sending = lab.assets("sending")
        let object = try lab.add(pseudoRandomBytes(200_000, seed: 4), to: sending)
        let good = try LFSTransport(endpoint: server.endpoint(), username: GiftlessServer.username, password: GiftlessServer.password)
        #expect(try await upload(good, [object], from: sending).sent == 1)
        try await download(good, [object], into: lab.assets("receiving"))
        #expect(lab.assets("receiving").verify(object.id, size: object.size))

        let wrongPassword = "wrong-Pa55word-9317"
        let bad = try LFSTransport(endpoint: server.endpoint(), username: GiftlessServer.username, password: wrongPassword)
        let none = try LFSTransport(endpoint: server.endpoint())
        for transport in [bad, none] {
            let error = await failure { try await download(transport, [object], into: lab.assets("other")) }
            guard case .authentication(let reason) = error as? TransferFailure else {
                Issue.record("expected authentication, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("401"))
            #expect(!"\(String(describing: error))".contains(wrongPassword))
            #expect(!"\(String(describing: error))".contains(GiftlessServer.password))
        }
        #expect(lab.assets("other").objects().isEmpty)
    }

    /// https through lighttpd with a self-signed certificate: refused as untrusted when
    /// verifying, and a full round trip with any server accepted (tests only).
    @Test func httpsRefusesAnUntrustedCertificateAndWorksWhenAccepted() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"), authenticated: true, tls: true)
        defer { server.stop() }
        let endpoint = try #require(server.secureEndpoint())
        let sending = lab.assets("sending")
        let object = try lab.add(pseudoRandomBytes(100_000, seed: 5), to: sending)
        let verifying = try LFSTransport(endpoint: endpoint, username: GiftlessServer.username, password: GiftlessServer.password)
        let error = await failure { _ = try await upload(verifying, [object], from: sending) }
        guard case .untrustedServer = error as? TransferFailure else {
            Issue.record("expected untrustedServer, got \(String(describing: error))")
            return
        }
        let accepting = try LFSTransport(
            endpoint: endpoint, username: GiftlessServer.username, password: GiftlessServer.password, trust: .acceptAny)
        #expect(try await upload(accepting, [object], from: sending).sent == 1)
        try await download(accepting, [object], into: lab.assets("receiving"))
        #expect(lab.assets("receiving").verify(object.id, size: object.size))
    }

    /// More than one batch: 250 objects go in batches of 100 (3 requests each way).
    @Test func manyObjectsGoInBatchesOfAHundred() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let objects = try (0..<250).map { try lab.add(Array("object \($0)\n".utf8), to: sending) }
        let transport = try LFSTransport(endpoint: server.endpoint())
        #expect(try await upload(transport, objects, from: sending).sent == 250)
        let receiving = lab.assets("receiving")
        try await download(transport, objects, into: receiving)
        #expect(receiving.objects() == objects.map(\.id).sorted())
        #expect(objects.allSatisfy { receiving.verify($0.id, size: $0.size) })
    }
}
