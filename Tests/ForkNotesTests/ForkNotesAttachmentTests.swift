import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes attachments")
struct ForkNotesAttachmentTests {
    /// A file of `size` bytes that do not repeat, in the test's folder.
    static func file(_ name: String, size: Int, in cli: ForkNotes) throws -> String {
        let path = cli.folder.child(name)
        var random = SplitMix(state: UInt64(size))
        try Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func attachments(of id: String, in store: String, cli: ForkNotes) async throws -> [[String: Any]] {
        let output = try await cli.ok("list", "--store", store, "--json")
        let notes = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        return notes.first { $0["id"] as? String == id }?["attachments"] as? [[String: Any]] ?? []
    }

    @Test func attachListOpenDetach() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let id = try #require(try await cli.ok("add", "--store", cli.store, "--title", "Trip").split(separator: "\n").last.map(String.init))
        let photo = try Self.file("photo.jpg", size: 300_000, in: cli)
        #expect(try await cli.ok("attach", "--store", cli.store, id, photo).contains("Attached photo.jpg"))
        try await cli.ok("attach", "--store", cli.store, id, photo, "--name", "copy.jpg")

        let listed = try await Self.attachments(of: id, in: cli.store, cli: cli)
        #expect(listed.compactMap { $0["name"] as? String } == ["copy.jpg", "photo.jpg"])
        let sha = try await run("/usr/bin/sha256sum", [photo]).stdout.prefix(64)
        #expect(listed.allSatisfy { $0["id"] as? String == "sha256:\(sha)" && $0["size"] as? Int == 300_000 })
        #expect(listed.allSatisfy { $0["mediaType"] as? String == "image/jpeg" && $0["local"] as? Bool == true })
        #expect(try await cli.ok("list", "--store", cli.store).contains("attached: copy.jpg (300 KB), photo.jpg (300 KB)"))

        // Open prints a local file holding the same bytes; with two attachments it needs a name.
        let opened = try await cli.ok("open", "--store", cli.store, id, "photo.jpg").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(FileManager.default.contents(atPath: opened) == FileManager.default.contents(atPath: photo))
        let ambiguous = try await cli("open", "--store", cli.store, id)
        #expect(ambiguous.status != 0 && ambiguous.stderr.contains("copy.jpg, photo.jpg"))

        try await cli.ok("detach", "--store", cli.store, id, "copy.jpg")
        #expect(try await Self.attachments(of: id, in: cli.store, cli: cli).compactMap { $0["name"] as? String } == ["photo.jpg"])
        let missing = try await cli("detach", "--store", cli.store, id, "copy.jpg")
        #expect(missing.status != 0 && missing.stderr.contains("no attachment named 'copy.jpg'"))
        // The note's blob holds only the reference, as stock git shows it.
        let blob = try await git("--git-dir", cli.store, "grep", "-h", "-A3", "$asset", "main").stdout
        #expect(blob.contains("\"$asset\": \"sha256:\(sha)\"") && blob.contains("\"name\": \"photo.jpg\""))
    }

    @Test func badNamesAndMissingFilesAreRefused() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let id = try #require(try await cli.ok("add", "--store", cli.store, "--title", "x").split(separator: "\n").last.map(String.init))
        let file = try Self.file("a.bin", size: 10, in: cli)
        let slash = try await cli("attach", "--store", cli.store, id, file, "--name", "../evil")
        #expect(slash.status != 0 && slash.stderr.contains("without '/'"))
        let missing = try await cli("attach", "--store", cli.store, id, cli.folder.child("nope.bin"))
        #expect(missing.status != 0)
        let noNote = try await cli("attach", "--store", cli.store, "000000000000", file)
        #expect(noNote.status != 0 && noNote.stderr.contains("No note with id"))
        #expect(try await Self.attachments(of: id, in: cli.store, cli: cli).isEmpty)
    }

    @Test func theOtherReplicaFetchesWhenItOpensAndStatusShowsPendingUploads() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        let laptop = cli.folder.child("laptop"), phone = cli.folder.child("phone")
        try await cli.ok("init", "--store", laptop, "--remote", remote)
        try await cli.ok("init", "--store", phone, "--remote", remote)
        let id = try #require(try await cli.ok("add", "--store", laptop, "--title", "Scan").split(separator: "\n").last.map(String.init))
        let scan = try Self.file("scan.pdf", size: 2_000_000, in: cli)
        try await cli.ok("attach", "--store", laptop, id, scan)

        // Before the sync, status lists the upload the next sync makes before it pushes.
        let before = try JSONSerialization.jsonObject(with: Data(try await cli.ok("status", "--store", laptop, "--json").utf8)) as? [String: Any]
        let transfers = before?["transfers"] as? [[String: Any]] ?? []
        #expect(transfers.count == 1 && transfers.first?["direction"] as? String == "upload" && transfers.first?["totalBytes"] as? Int == 2_000_000)
        #expect(try await cli.ok("status", "--store", laptop).contains("to upload:    scan.pdf"))

        try await cli.ok("sync", "--store", laptop)
        let after = try JSONSerialization.jsonObject(with: Data(try await cli.ok("status", "--store", laptop, "--json").utf8)) as? [String: Any]
        #expect((after?["transfers"] as? [[String: Any]])?.isEmpty == true)
        try await cli.ok("sync", "--store", phone)
        #expect(try await Self.attachments(of: id, in: phone, cli: cli).first?["local"] as? Bool == false)
        #expect(try await cli.ok("list", "--store", phone).contains("scan.pdf (2 MB, not fetched)"))

        let opened = try await cli.ok("open", "--store", phone, id).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(opened.hasPrefix(phone))
        #expect(FileManager.default.contents(atPath: opened) == FileManager.default.contents(atPath: scan))
        #expect(try await Self.attachments(of: id, in: phone, cli: cli).first?["local"] as? Bool == true)
    }

    @Test func openingWithoutTheBytesAnywhereSaysWhichAttachment() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        let laptop = cli.folder.child("laptop"), phone = cli.folder.child("phone")
        try await cli.ok("init", "--store", laptop, "--remote", remote)
        try await cli.ok("init", "--store", phone, "--remote", remote)
        let id = try #require(try await cli.ok("add", "--store", laptop, "--title", "Lost").split(separator: "\n").last.map(String.init))
        try await cli.ok("attach", "--store", laptop, id, try Self.file("lost.bin", size: 1000, in: cli))
        try await cli.ok("sync", "--store", laptop)
        try await cli.ok("sync", "--store", phone)
        try FileManager.default.removeItem(atPath: remote + "/lfs")
        let result = try await cli("open", "--store", phone, id)
        #expect(result.status == 1)
        #expect(result.stderr.contains("lost.bin"))
    }
}
