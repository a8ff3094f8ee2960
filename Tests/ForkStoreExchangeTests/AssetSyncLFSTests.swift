import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Assets through a Git LFS server (giftless) while the commits go to a bare repository by
/// path: the exchange's own paths (push, lazy and eager downloads) end to end.
@Suite("Asset sync through a Git LFS server")
struct AssetSyncLFSTests {
    /// A lazy phone that never downloaded a note's picture edits the note and syncs: the push
    /// asks the server about the picture, which has it, so nothing stops it.
    @Test func aLazyReplicaPushesAnEditOfARecordWhoseAssetItNeverFetched() async throws {
        let lab = try await SyncLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let remote = try Remote(lab.remotePath, assetsURL: server.endpoint())
        let laptop = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("laptop"))
        let laptopSync = Exchange(records: laptop, remote: remote)
        let phone = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("phone"))
        let phoneSync = Exchange(records: phone, remote: remote)
        let picture = try addTestAsset(to: laptop, bytes: randomBytes(200_000, seed: 41))
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        #expect(try await laptopSync.sync().uploadedAssets == 1)
        #expect(FileManager.default.fileExists(atPath: server.storedPath(picture.id.hex)))

        try await phoneSync.sync()
        #expect(!isLocal(picture, in: phone))
        try await phone.save(AttachmentNote(id: "p", title: "picture, renamed", file: picture))
        let pushed = try await phoneSync.sync()
        #expect(pushed.pushedCommits >= 1 && pushed.uploadedAssets == 0)
        #expect(!isLocal(picture, in: phone))
        try await laptopSync.sync()
        #expect(try await laptop.record("p")?.title == "picture, renamed")
    }

    /// A local copy that rotted (the same size, other bytes) is hashed as it is sent: the
    /// upload stops before its last byte, the server keeps nothing, nothing is pushed, and the
    /// damaged copy is removed.
    @Test func aBitRottedLocalCopyIsNotUploaded() async throws {
        let lab = try await SyncLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let laptop = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("laptop"))
        let laptopSync = Exchange(records: laptop, remote: try Remote(lab.remotePath, assetsURL: server.endpoint()))
        var bytes = randomBytes(300_000, seed: 42)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        let path = localPath(of: picture, in: laptop)
        bytes[150_000] ^= 0x01
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let error = try #require(await expectSync(laptopSync, failsWith: .store))
        #expect(error.storeError?.code == .assetCorrupt, "\(error)")
        let stored = FileManager.default.contents(atPath: server.storedPath(picture.id.hex))
        #expect(stored == nil, "the server kept \(stored?.count ?? 0) bytes")
        #expect(!isLocal(picture, in: laptop) && !FileManager.default.fileExists(atPath: path))
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", "-q", "main").status != 0)
    }

    /// An eager sync asks for all the assets it wants in one batch request, not one per asset,
    /// and still reports each that failed: here the server lacks one of four.
    @Test func anEagerSyncAsksForItsDownloadsInOneBatch() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        var contents: [String: [UInt8]] = [:]
        var assets: [Asset] = []
        for index in 0..<4 {
            let bytes = Array(String(repeating: "asset \(index)\n", count: 1000).utf8)
            let asset = try addTestAsset(to: laptop, bytes: bytes)
            contents[asset.id.hex] = bytes
            assets.append(asset)
            try await laptop.save(AttachmentNote(id: "n\(index)", title: "note \(index)", file: asset))
        }
        try await laptopSync.sync()
        let lost = assets[2]
        let known = contents.filter { $0.key != lost.id.hex }
        // A Git LFS server holding three of the four.
        let server = try TinyHTTPServer { request in
            guard request.requestLine.hasPrefix("POST ") else {
                let oid = request.requestLine.split(separator: " ").dropFirst().first?.dropFirst() ?? ""
                guard let bytes = known[String(oid)] else { return TinyHTTPServer.response("404 Not Found") }
                return TinyHTTPServer.response("200 OK", body: String(decoding: bytes, as: UTF8.self))
            }
            let json = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
            let objects = json?["objects"] as? [[String: Any]] ?? []
            let host = request.headers["host"] ?? ""
            return LFSHostileServerTests.answer(objects.map { object in
                let oid = object["oid"] as? String ?? "", size = object["size"] as? Int ?? 0
                return known[oid] == nil
                    ? #"{"oid":"\#(oid)","size":\#(size),"error":{"code":404,"message":"not here"}}"#
                    : LFSHostileServerTests.entry(oid: oid, size: size, href: "http://\(host)/\(oid)")
            })
        }
        let phone = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("phone"))
        let phoneSync = Exchange(
            records: phone, remote: try Remote(lab.remotePath, assetsURL: server.url + "/org/repo"),
            options: ExchangeOptions(assetDownloads: .eager))
        let report = try await phoneSync.sync()
        #expect(report.downloadedAssets == 3)
        #expect(report.assetErrors.map(\.asset) == [lost.id] && report.assetErrors.first?.code == .assetMissing)
        let batches = server.requests.filter { $0.requestLine.hasPrefix("POST ") }
        #expect(batches.count == 1, "one batch for the four, none again: the other three arrived")
        #expect(server.requests.count == 4)
        for asset in assets where asset != lost { #expect(isLocal(asset, in: phone)) }
    }
}
