import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes import")
struct ForkNotesImportTests {
    @Test func importsGoodLinesAndReportsTheRest() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        var lines: [String] = []
        for index in 0..<2_500 {
            lines.append(#"{"id":"n\#(index)","title":"Note \#(index)","body":"","tags":["t\#(index % 3)"],"done":false}"#)
        }
        lines.append(#"{"id":"../../x","title":"hostile","body":"b","tags":[],"done":true}"#)
        lines.append(#"{"id":"Con","title":"device","body":"","tags":[],"done":false}"#)
        lines.append(#"{"title":"no id","body":"","tags":[],"done":false}"#)
        lines.append("not json at all")
        lines.append(#"{"id":"twice","id":"other","title":"dup","body":"","tags":[],"done":false}"#)
        lines.append("")
        let file = cli.folder.child("notes.jsonl")
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let result = try await cli("import", "--store", cli.store, file)
        #expect(result.status == 1)
        #expect(result.stdout.contains("Imported 2502 note(s) in 3 commit(s); 3 skipped."))
        let problems = result.stderr.split(separator: "\n")
        #expect(problems.count == 3)
        #expect(problems.contains { $0.contains("line 2503") && $0.contains("missing id") })
        #expect(problems.contains { $0.contains("line 2504") })
        #expect(problems.contains { $0.contains("line 2505") && $0.contains("duplicate key") })
        let notes = try await cli.notes()
        #expect(notes.count == 2502)
        #expect(notes.contains { $0["id"] as? String == "../../x" && $0["done"] as? Bool == true })
        #expect(try await cli.ok("edit", "--store", cli.store, "../../x", "--title", "still addressable").isEmpty)
    }

    /// A last line without a newline is a line like the others (it crashed the line reader).
    @Test func readsALastLineWithoutANewline() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let file = cli.folder.child("notes.jsonl")
        let lines = (0..<3).map { #"{"id":"n\#($0)","title":"Note \#($0)","body":"","tags":[],"done":false}"# }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let result = try await cli("import", "--store", cli.store, file)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Imported 3 note(s)"))
        #expect(try await cli.notes().count == 3)
    }
}

@Suite("forknotes keeps a store packed")
struct ForkNotesPackingTests {
    /// Every CLI command is a process of its own that writes once: the packing policy must
    /// not depend on one process living long. Under a sanitizer, 100 adds: each process starts
    /// several times slower there, and 100 unpacked adds would still leave over 300 files.
    @Test func aThousandSeparateAddsLeaveAPackedStore() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let adds = Sanitizer.scaled(1_000, sanitized: 100)
        // Two lanes of processes at once.
        let failures = await withTaskGroup(of: [String].self) { lanes in
            for lane in 0..<2 {
                lanes.addTask {
                    var failures: [String] = []
                    for index in stride(from: lane, to: adds, by: 2) {
                        let result = try? await cli("add", "--store", cli.store, "--title", "note \(index)")
                        if result?.status != 0 { failures.append(result?.stderr ?? "did not run") }
                    }
                    return failures
                }
            }
            return await lanes.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(try await cli.notes().count == adds)
        let objects = cli.store + "/objects"
        let files = (FileManager.default.enumerator(atPath: objects)?.allObjects as? [String] ?? []).filter {
            (try? FileManager.default.attributesOfItem(atPath: objects + "/" + $0))?[.type] as? FileAttributeType == .typeRegular
        }
        #expect(files.count < 200, "\(files.count) files in objects/")
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }
}
