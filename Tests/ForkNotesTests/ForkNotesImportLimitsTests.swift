import ForkStoreTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("forknotes import costs follow the input")
struct ForkNotesImportLimitsTests {
    private func importing(_ cli: ForkNotes, _ file: String, limit: Double = 30) async throws -> MeasuredRun {
        try await MeasuredRun.run(productsFolder() + "/forknotes", ["import", "--store", cli.store, file], limit: limit)
    }

    private func note(_ id: String, body: String = "") -> String {
        #"{"id":"\#(id)","title":"Note \#(id)","body":"\#(body)","tags":["t"],"done":false}"#
    }

    /// What cannot be read as lines of text is refused at once: a device that never ends, a
    /// folder, a pipe nobody writes to, bytes that are not UTF-8, a sparse file of NULs.
    @Test func whatIsNotATextFileIsRefusedAtOnce() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let folder = cli.folder.child("a-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fifo = cli.folder.child("a-fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let binary = cli.folder.child("latin1.jsonl")
        try Data([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xE9, 0x22, 0x7D, 0x0A]).write(to: URL(fileURLWithPath: binary))
        let sparse = cli.folder.child("sparse.jsonl")
        _ = FileManager.default.createFile(atPath: sparse, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: sparse))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()

        let cases = [
            ("/dev/zero", "is a device"), (folder, "is a folder"), (fifo, "is a pipe"),
            (binary, "Line 1 of '\(binary)' is not UTF-8 text"), (sparse, "Line 1 of '\(sparse)' is not UTF-8 text"),
        ]
        // "At once" is within a second of what an import of nothing takes on this machine now
        // (beside other work, a process alone can take that long).
        let empty = cli.folder.child("empty.jsonl")
        _ = FileManager.default.createFile(atPath: empty, contents: nil)
        let nothing = try await importing(cli, empty, limit: 10).seconds
        for (file, reason) in cases {
            let result = try await importing(cli, file, limit: 10)
            print("import \(file): \(String(format: "%.2f", result.seconds)) s, peak \(result.peakKB / 1024) MB, exit \(result.status)")
            #expect(!result.timedOut && result.seconds < nothing + 1, "\(file) took \(result.seconds) s; an empty import \(nothing) s")
            #expect(result.status == 1, "\(file): \(result.stdout)")
            #expect(result.stderr.contains(reason), "\(file): \(result.stderr)")
        }
        #expect(try await cli.notes().isEmpty)
    }

    /// A line over the limit is reported by number once the limit is reached and the rest of
    /// it is read past: the lines around it are stored, and memory never holds it.
    @Test func aLineOverTheLimitIsSkippedAtTheLimit() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let file = cli.folder.child("long.jsonl")
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data((note("before") + "\n" + #"{"id":"long","title":"t","body":""#).utf8))
        let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<100 { try handle.write(contentsOf: block) }
        try handle.write(contentsOf: Data(("\",\"tags\":[],\"done\":false}\n" + note("after") + "\n").utf8))
        try handle.close()

        let result = try await importing(cli, file)
        print("import of a 100 MB line: \(String(format: "%.2f", result.seconds)) s, peak \(result.peakKB / 1024) MB")
        #expect(result.status == 1)
        #expect(result.stderr.contains("line 2: longer than 4194304 bytes"), "\(result.stderr)")
        #expect(result.stdout.contains("Imported 2 note(s)"), "\(result.stdout)")
        #expect(result.seconds < 5)
        #expect(result.peakKB < 100 << 10)
        #expect(Set(try await cli.notes().compactMap { $0["id"] as? String }) == ["before", "after"])
    }

    /// A large file of large notes (160 of 900 KB, 144 MB) is imported within 100 MB: a batch
    /// ends once it holds the import's segment budget, whatever `--batch-size` says (before,
    /// one batch held every note: 583 MB for 270 MB of notes).
    @Test func aLargeFileIsImportedInBoundedMemory() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let file = cli.folder.child("large.jsonl")
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        let count = 160
        for index in 0..<count {
            try handle.write(contentsOf: Data((note("large-\(index)", body: String(repeating: "abcdefghij", count: 90_000)) + "\n").utf8))
        }
        try handle.close()
        let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0

        let result = try await importing(cli, file, limit: 600)
        print("import of \(size >> 20) MB in \(count) notes: \(String(format: "%.1f", result.seconds)) s, peak \(result.peakKB >> 10) MB")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Imported \(count) note(s)"), "\(result.stdout)")
        #expect(result.peakKB < 100 << 10)
        #expect(try await cli("count", "--store", cli.store).stdout == "\(count)\n")
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }

    /// A line of exactly the limit is read; one byte more is not.
    @Test func theLimitIsExact() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let limit = 4 << 20
        let open = #"{"id":"edge","title":"t","body":""#, close = #"","tags":[],"done":false}"#
        let body = String(repeating: " ", count: limit - open.utf8.count - close.utf8.count)
        let file = cli.folder.child("edge.jsonl")
        try (open + body + close + "\n" + open + body + " " + close + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await importing(cli, file)
        // The first line is read (and then refused as a note too large to store); the second is not read.
        #expect(result.stderr.contains("note edge: larger than the record limit"), "\(result.stderr)")
        #expect(result.stderr.contains("line 2: longer than 4194304 bytes"), "\(result.stderr)")
        #expect(!result.stderr.contains("line 1:"), "\(result.stderr)")
    }
}
