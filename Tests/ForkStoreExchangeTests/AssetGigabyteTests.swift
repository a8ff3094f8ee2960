import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A 1 GiB attachment between two replicas through a path remote, each replica a process of
/// its own (the stress writer) whose peak resident memory (`VmHWM`) must stay within 64 MB:
/// the uploader adds the file to its store and uploads it before its push, the downloader
/// syncs and fetches it. At most 3 GB of disk for a minute (the file, the uploader's store and
/// the remote; the file is removed before the download), removed at the end. scripts/test.sh
/// runs it alone, after the other tests, and not under a sanitizer; it prints its figures.
@Suite("A gigabyte asset")
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
}
