import ForkStore
@testable import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// The objects of a batch move several at a time (LFSConcurrentTransfers): all arrive whole,
/// their progress reaches the caller one call at a time, one object's failure lets the others
/// come and the first in order is thrown, a failure of the whole transfer stops every worker.
@Suite("Git LFS transfers several at a time")
struct LFSConcurrentTransferTests {
    /// Objects of sizes from a few bytes to 300 KB.
    static func objects(_ count: Int, in lab: LFSLab, folder: AssetFolder, seed: UInt64) throws -> [(AssetObject, [UInt8])] {
        try (0..<count).map { index in
            let bytes = pseudoRandomBytes(7 + (index * 7_919) % 300_000, seed: seed + UInt64(index))
            return (try lab.add(bytes, to: folder), bytes)
        }
    }

    /// 150 objects (two batches) up and down through giftless: each arrives with its bytes,
    /// and each one's progress ends at its size.
    @Test func manyObjectsGoUpAndComeDownWhole() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let objects = try Self.objects(150, in: lab, folder: sending, seed: 300)
        let transport = try LFSTransport(endpoint: server.endpoint())
        let (sent, upProgress) = try await upload(transport, objects.map(\.0), from: sending)
        #expect(sent == 150)
        for (object, bytes) in objects {
            #expect(FileManager.default.contents(atPath: server.storedPath(object.id.hex)).map(Array.init) == bytes)
            #expect(upProgress[object.id] == object.size)
        }

        let receiving = lab.assets("receiving")
        let downProgress = try await download(transport, objects.map(\.0), into: receiving)
        for (object, bytes) in objects {
            #expect(FileManager.default.contents(atPath: receiving.path(of: object.id)).map(Array.init) == bytes)
            #expect(downProgress[object.id] == object.size)
        }
        #expect(lab.leftovers(in: receiving).isEmpty)
        // Nothing left to send.
        #expect(try await upload(transport, objects.map(\.0), from: sending).sent == 0)
    }

    /// Actions that run out while earlier objects move (giftless's tokens here last 6 seconds,
    /// though its answers say 900): 32 objects of 2 MB downloaded at 0.5 MB/s each, 8 at a
    /// time, so the last ones start about 10 seconds in, after their tokens expired. Each such
    /// object is asked about again and comes, rather than failing the transfer with a 401.
    /// (A fresh action has 6 seconds to reach the server: with 1, a loaded machine running
    /// the suite under AddressSanitizer let all three of an object's actions expire.) Uploads
    /// go at full speed: giftless's server reads a whole body before it checks the token.
    @Test func actionsThatExpireBeforeTheirTurnAreAskedForAgain() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"), tokenLifetime: 6)
        defer { server.stop() }
        let sending = lab.assets("sending")
        let objects = try (0..<32).map { try lab.add(pseudoRandomBytes(2 << 20, seed: 700 + UInt64($0)), to: sending) }
        #expect(try await upload(try LFSTransport(endpoint: server.endpoint()), objects, from: sending).sent == 32)
        let slow = try LFSTransport(endpoint: server.endpoint(), pause: .seconds(2))
        let receiving = lab.assets("receiving")
        _ = try await download(slow, objects, into: receiving)
        for object in objects {
            #expect(FileManager.default.contents(atPath: receiving.path(of: object.id)).map(Array.init)
                == FileManager.default.contents(atPath: sending.path(of: object.id)).map(Array.init))
        }
        #expect(lab.leftovers(in: receiving).isEmpty)
    }

    /// Eight objects of 2 MB at 4 MB/s each: their downloads overlap (one's progress events
    /// come between another's first and last), which one after the other they could not.
    @Test func objectsOfABatchMoveAtTheSameTime() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let objects = try (0..<8).map { try lab.add(pseudoRandomBytes(2 << 20, seed: 400 + UInt64($0)), to: sending) }
        _ = try await upload(try LFSTransport(endpoint: server.endpoint()), objects, from: sending)

        let slow = try LFSTransport(endpoint: server.endpoint(), pause: .milliseconds(250))
        let receiving = lab.assets("receiving")
        let order = try await onOwnThread {
            var seen: [AssetID] = []
            try slow.download(objects, into: receiving) { seen.append($0.object.id) }
            return seen
        }
        #expect(objects.allSatisfy { receiving.verify($0.id, size: $0.size) })
        let spans = objects.map { object in
            (order.firstIndex(of: object.id) ?? -1, order.lastIndex(of: object.id) ?? -1)
        }
        let overlapping = spans.indices.contains { one in
            spans.indices.contains { other in other != one && spans[other].0 > spans[one].0 && spans[other].0 < spans[one].1 }
        }
        #expect(overlapping, "progress in order: \(order.map { String($0.hex.prefix(6)) })")
    }

    /// Two of twenty objects gone from giftless's storage: the other eighteen arrive, and the
    /// first missing one in the order asked is thrown.
    @Test func oneObjectsFailureLetsTheOthersComeAndTheFirstIsThrown() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let objects = try Self.objects(20, in: lab, folder: sending, seed: 500).map(\.0)
        let transport = try LFSTransport(endpoint: server.endpoint())
        _ = try await upload(transport, objects, from: sending)
        for index in [11, 3] { try FileManager.default.removeItem(atPath: server.storedPath(objects[index].id.hex)) }

        let receiving = lab.assets("receiving")
        let error = await failure { try await download(transport, objects, into: receiving) }
        #expect(error as? AssetTransferFailure == .missingOnRemote(objects[3].id), "\(String(describing: error))")
        for (index, object) in objects.enumerated() {
            #expect(receiving.verify(object.id, size: object.size) == ![3, 11].contains(index))
        }
        #expect(lab.leftovers(in: receiving).isEmpty)
    }

    /// A 401 for one object's download, again with fresh actions, fails the whole transfer:
    /// the error is thrown once every worker has stopped, no other object is asked for twice,
    /// and what is in the folder is whole.
    @Test func aFailureOfTheWholeTransferStopsEveryWorker() async throws {
        let lab = LFSLab()
        // Letters: the small server sends text.
        let stored = (0..<12).map { pseudoRandomBytes(50_000 + $0, seed: 600 + UInt64($0)).map { 97 + $0 % 26 } }
        let objects = stored.map { AssetObject(id: assetID(of: $0), size: $0.count) }
        let refused = objects[5].id.hex
        let server = try LFSHostileServerTests.server(batch: { url in
            LFSHostileServerTests.answer(objects.map { LFSHostileServerTests.entry(oid: $0.id.hex, size: $0.size, href: url + "/o/" + $0.id.hex) })
        }) { request in
            guard let index = objects.firstIndex(where: { request.requestLine.contains($0.id.hex) }) else {
                return TinyHTTPServer.response("404 Not Found")
            }
            if objects[index].id.hex == refused { return TinyHTTPServer.response("401 Unauthorized", body: "sign in") }
            return TinyHTTPServer.response("200 OK", body: String(decoding: stored[index], as: UTF8.self))
        }
        let receiving = lab.assets("receiving")
        let transport = try LFSTransport(endpoint: server.url + "/org/repo")
        let error = await failure { try await download(transport, objects, into: receiving) }
        guard case .authentication = error as? TransferFailure else {
            Issue.record("expected authentication, got \(String(describing: error))")
            return
        }
        let gets = server.requests.filter { $0.requestLine.hasPrefix("GET ") }.map(\.requestLine)
        #expect(gets.filter { $0.contains(refused) }.count == LFSTransport.actionAttempts, "\(gets)")
        let others = gets.filter { !$0.contains(refused) }
        #expect(Set(others).count == others.count)
        #expect(!receiving.contains(objects[5].id, size: objects[5].size))
        for object in objects where receiving.contains(object.id, size: object.size) {
            #expect(receiving.verify(object.id, size: object.size))
        }
    }
}
