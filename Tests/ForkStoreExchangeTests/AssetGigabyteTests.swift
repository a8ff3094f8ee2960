import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A 1 GiB attachment between two replicas through a path remote, and through a bare remote whose
/// assets go to giftless (a real Git LFS server, `Remote.assetsURL`, serving downloads in 1 MiB
/// blocks: by giftless's own lines, the download took 77 s), each replica a process of its own (the
/// stress writer) whose peak resident memory (`VmHWM`) must stay within 64 MB: the uploader adds
/// the file to its store and uploads it before its push, the downloader syncs and fetches it. At
/// most 3 GB of disk (of memory, when scripts/test.sh puts the temporary folders in /dev/shm) for a
/// minute each (the file, the uploader's store and the remote or giftless's storage, and waitress's
/// spool of the upload; the file is removed before the download), removed at the end.
/// scripts/test.sh runs the suite alone, after the other tests, one test after the other (not under
/// a sanitizer); each prints its figures.
@Suite("A gigabyte asset", .serialized)
struct AssetGigabyteTests {
    static let size = 1 << 30
    static let memoryLimitKB = 64 * 1024

    @Test(.timeLimit(.minutes(20)))
    func aGigabyteMovesThroughAPathRemoteWithin64MB() async throws {
        let lab = try await SyncLab()
        let file = lab.folder.child("gigabyte.bin")
        let writer = productsFolder() + "/forkstore-stress-writer"
        try await onOwnThread { try writeRandomFile(file, size: Self.size, seed: 41) }
        let laptop = lab.folder.child("laptop"), phone = lab.folder.child("phone")

        let upload = try await MeasuredRun.run(writer, ["asset-push", laptop, lab.remotePath, file, "0"], limit: 900)
        try FileManager.default.removeItem(atPath: file)
        #expect(upload.status == 0 && !upload.timedOut, "\(upload.stderr)")
        #expect(upload.stdout.contains("done synced 1"))
        let download = try await MeasuredRun.run(writer, ["asset-fetch", phone, lab.remotePath, "0"], limit: 900)
        #expect(download.status == 0 && !download.timedOut, "\(download.stderr)")

        let store = try await RecordStore<AttachmentNote>.open(at: phone)
        let asset = try #require(try await store.record("big")?.file)
        #expect(asset.size == Self.size)
        #expect(download.stdout.contains("done fetched \(localPath(of: asset, in: store))"))
        #expect(try fileSize(localPath(of: asset, in: store)) == Self.size)
        print(
            "gigabyte asset: upload (add + sync) \(String(format: "%.1f", upload.seconds)) s, peak \(upload.peakKB / 1024) MB; "
                + "download (sync + fetch) \(String(format: "%.1f", download.seconds)) s, peak \(download.peakKB / 1024) MB")
        #expect(upload.peakKB > 0 && upload.peakKB <= Self.memoryLimitKB, "the uploader peaked at \(upload.peakKB) KB")
        #expect(download.peakKB > 0 && download.peakKB <= Self.memoryLimitKB, "the downloader peaked at \(download.peakKB) KB")
    }

    @Test(.timeLimit(.minutes(20)))
    func aGigabyteMovesThroughGiftlessWithin64MB() async throws {
        let lab = try await SyncLab()
        let server = try await GiftlessServer(
            folder: lab.folder.child("giftless"), blockDownloads: true)
        defer { server.stop() }
        let file = lab.folder.child("gigabyte.bin")
        let writer = productsFolder() + "/forkstore-stress-writer"
        try await onOwnThread { try writeRandomFile(file, size: Self.size, seed: 42) }
        let laptop = lab.folder.child("laptop"), phone = lab.folder.child("phone")

        let upload = try await MeasuredRun.run(
            writer, ["asset-push", laptop, lab.remotePath, file, "0", server.endpoint()], limit: 900,
            environment: ["FORKSTORE_STRESS_QUIET": "1"])
        try FileManager.default.removeItem(atPath: file)
        #expect(upload.status == 0 && !upload.timedOut, "\(upload.stderr)")
        #expect(upload.stdout.contains("done synced 1"))
        let sent = try #require(try await RecordStore<AttachmentNote>.open(at: laptop).record("big")?.file)
        // The remote's main names it, and giftless holds it whole; the remote's own folder not.
        let named = try await git("--git-dir", lab.remotePath, "grep", "-h", "-o", "-E", "sha256:[0-9a-f]{64}", "main").stdout
        #expect(named.contains(sent.id.hex))
        #expect(try fileSize(server.storedPath(sent.id.hex)) == Self.size)
        #expect(!FileManager.default.fileExists(atPath: remoteObjectPath(lab, sent)))
        try FileManager.default.removeItem(atPath: laptop)

        let download = try await MeasuredRun.run(
            writer, ["asset-fetch", phone, lab.remotePath, "0", server.endpoint()], limit: 900,
            environment: ["FORKSTORE_STRESS_QUIET": "1"])
        #expect(download.status == 0 && !download.timedOut, "\(download.stderr)")
        let store = try await RecordStore<AttachmentNote>.open(at: phone)
        let asset = try #require(try await store.record("big")?.file)
        #expect(asset == sent)
        #expect(download.stdout.contains("done fetched \(localPath(of: asset, in: store))"))
        #expect(try fileSize(localPath(of: asset, in: store)) == Self.size)
        #expect(!FileManager.default.fileExists(atPath: partialPath(of: asset, in: store)))
        print(
            "gigabyte asset through giftless: upload (add + sync) \(String(format: "%.1f", upload.seconds)) s, peak \(upload.peakKB / 1024) MB; "
                + "download (sync + fetch) \(String(format: "%.1f", download.seconds)) s, peak \(download.peakKB / 1024) MB")
        #expect(upload.peakKB > 0 && upload.peakKB <= Self.memoryLimitKB, "the uploader peaked at \(upload.peakKB) KB")
        #expect(download.peakKB > 0 && download.peakKB <= Self.memoryLimitKB, "the downloader peaked at \(download.peakKB) KB")
    }
}
