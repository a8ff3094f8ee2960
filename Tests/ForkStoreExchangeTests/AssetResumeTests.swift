import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Transfers killed half-way (SIGKILL of the stress writer while it moves an asset slowly)
/// resume where they stopped: the second run starts from the partial file's length, copies
/// only the rest, and the bytes that arrive are checked whole.
@Suite("Asset transfers resume after a kill")
struct AssetResumeTests {
    /// 24 MB, a megabyte every quarter second: six seconds to kill the first run in.
    static let size = 24 << 20 | 4321

    @Test func anUploadKilledHalfWayResumesAndTheCommitWaitsForIt() async throws {
        let lab = try await SyncLab()
        let file = lab.folder.child("big.bin")
        try writeRandomFile(file, size: Self.size, seed: 31)
        let store = lab.folder.child("laptop")

        // "added", then the upload's first events: at least 3 MB in the remote's partial file.
        let first = try await runStressWriter(["asset-push", store, lab.remotePath, file, "250"], killAfter: 5)
        #expect(first.first == "added" && first.contains { $0.hasPrefix("uploaded ") })
        #expect(!first.contains { $0.hasPrefix("synced") })
        let asset = try #require(try await RecordStore<AttachmentNote>.open(at: store).record("big")?.file)
        let partial = lab.remotePath + "/lfs/tmp/\(asset.id.hex).part"
        let kept = try fileSize(partial)
        #expect(kept >= 3 << 20 && kept < Self.size, "the partial file holds \(kept) bytes")
        #expect(!FileManager.default.fileExists(atPath: remoteObjectPath(lab, asset)))
        // The commit referencing it is not on the remote.
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", "-q", "main").status != 0)
        // Another process sees what is left to send, and how far it came.
        let pending = try await Exchange(records: try await RecordStore<AttachmentNote>.open(at: store), remote: try Remote(lab.remotePath))
            .pendingAssetTransfers()
        #expect(pending == [AssetTransferProgress(direction: .upload, asset: asset, bytes: kept, totalBytes: Self.size)])

        let second = try await runStressWriter(["asset-push", store, lab.remotePath, file, "0"], killAfter: nil)
        let uploaded = second.compactMap { $0.hasPrefix("uploaded ") ? Int($0.dropFirst("uploaded ".count)) : nil }
        #expect(uploaded.first == kept, "the second run started from \(uploaded.first ?? -1), not from \(kept)")
        #expect(uploaded.last == Self.size && second.last == "synced 1")
        #expect(FileManager.default.contents(atPath: remoteObjectPath(lab, asset)) == FileManager.default.contents(atPath: file))
        #expect(!FileManager.default.fileExists(atPath: partial))
        try await expectEveryRemoteCommitHasItsAssets(lab)
    }

    @Test func aDownloadKilledHalfWayResumesAndShowsNothingUntilWhole() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let file = lab.folder.child("big.bin")
        try writeRandomFile(file, size: Self.size, seed: 32)
        let asset = try addTestAsset(to: laptop, contentsOf: file)
        try await laptop.save(AttachmentNote(id: "big", title: "big", file: asset))
        try await laptopSync.sync()
        let phone = lab.folder.child("phone")

        let first = try await runStressWriter(["asset-fetch", phone, lab.remotePath, "250"], killAfter: 5)
        #expect(first.first == "synced" && !first.contains { $0.hasPrefix("fetched") })
        let store = try await RecordStore<AttachmentNote>.open(at: phone)
        let partial = partialPath(of: asset, in: store)
        let kept = try fileSize(partial)
        #expect(kept >= 3 << 20 && kept < Self.size, "the partial file holds \(kept) bytes")
        #expect(!isLocal(asset, in: store) && !FileManager.default.fileExists(atPath: localPath(of: asset, in: store)))

        let second = try await runStressWriter(["asset-fetch", phone, lab.remotePath, "0"], killAfter: nil)
        let downloaded = second.compactMap { $0.hasPrefix("downloaded ") ? Int($0.dropFirst("downloaded ".count)) : nil }
        #expect(downloaded.first == kept, "the second run started from \(downloaded.first ?? -1), not from \(kept)")
        #expect(downloaded.last == Self.size)
        #expect(second.last == "fetched \(localPath(of: asset, in: store))")
        #expect(FileManager.default.contents(atPath: localPath(of: asset, in: store)) == FileManager.default.contents(atPath: file))
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    /// giftless ignores `Range`: a download from it killed half-way starts again the next
    /// time (its first bytes counted are below what the partial file held), replaces the
    /// partial file rather than appending to it, and ends with the right bytes.
    @Test func aDownloadFromGiftlessKilledHalfWayStartsAgainAndEndsRight() async throws {
        let lab = try await SyncLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let laptop = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("laptop"))
        let file = lab.folder.child("big.bin")
        try writeRandomFile(file, size: Self.size, seed: 33)
        let asset = try addTestAsset(to: laptop, contentsOf: file)
        try await laptop.save(AttachmentNote(id: "big", title: "big", file: asset))
        let remote = try Remote(lab.remotePath, assetsURL: server.endpoint())
        #expect(try await Exchange(records: laptop, remote: remote).sync().uploadedAssets == 1)
        let phone = lab.folder.child("phone")

        // "synced", the first progress line, then a second and a half at 1 MB a second
        // (curl's speed limit; the sockets' buffers take more at first): 24 MB take 24 s, so
        // a kill that comes late on a busy machine still comes half-way.
        let first = try await runStressWriter(["asset-fetch", phone, lab.remotePath, "1000", server.endpoint()], killAfter: 2, delay: 1.5)
        #expect(first.first == "synced" && !first.contains { $0.hasPrefix("fetched") })
        let store = try await RecordStore<AttachmentNote>.open(at: phone)
        let partial = partialPath(of: asset, in: store)
        let kept = try fileSize(partial)
        #expect(kept > 0 && kept < Self.size, "the partial file holds \(kept) bytes")
        #expect(!isLocal(asset, in: store))

        // At 4 MB a second: a download at full speed sends progress events faster than a
        // sanitized run prints them, and the exchange's event stream keeps only the newest
        // 1,024, so the first ones printed could lie past what the partial file held.
        let second = try await runStressWriter(["asset-fetch", phone, lab.remotePath, "250", server.endpoint()], killAfter: nil)
        let downloaded = second.compactMap { $0.hasPrefix("downloaded ") ? Int($0.dropFirst("downloaded ".count)) : nil }
        let firstBytes = downloaded.first { $0 > 0 } ?? -1
        #expect(firstBytes > 0 && firstBytes < kept, "the second run counted \(firstBytes) bytes first; the partial file held \(kept)")
        #expect(downloaded.last == Self.size)
        #expect(second.last == "fetched \(localPath(of: asset, in: store))")
        #expect(FileManager.default.contents(atPath: localPath(of: asset, in: store)) == FileManager.default.contents(atPath: file))
        #expect(!FileManager.default.fileExists(atPath: partial))
    }
}

func fileSize(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
}
