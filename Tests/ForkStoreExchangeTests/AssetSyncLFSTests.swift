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
}
