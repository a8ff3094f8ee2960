import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes list and count through the query index")
struct ForkNotesQueryTests {
    @Test func listFiltersSortsAndLimitsAndCountAgrees() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let lines = [
            #"{"id":"n1","title":"Pay rent","body":"","tags":["home","money"],"done":false,"due":"2026-12-01T00:00:00Z"}"#,
            #"{"id":"n2","title":"Call Ann","body":"","tags":["work"],"done":false,"due":"2026-11-25T00:00:00Z"}"#,
            #"{"id":"n3","title":"Buy milk","body":"","tags":["home"],"done":true}"#,
            #"{"id":"n4","title":"Ship release","body":"","tags":["work"],"done":false,"due":"2026-11-30T00:00:00Z"}"#,
            #"{"id":"n5","title":"Answer mail","body":"","tags":["work","home"],"done":false,"due":"2027-01-10T00:00:00Z"}"#,
        ]
        let input = folderFile(cli, "notes.jsonl", lines.joined(separator: "\n") + "\n")
        try await cli.ok("import", "--store", cli.store, input)

        func ids(_ arguments: String...) async throws -> [String] {
            let output = try await run(productsFolder() + "/forknotes", ["list", "--store", cli.store, "--json"] + arguments)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            let notes = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
            return notes.compactMap { $0["id"] as? String }
        }
        #expect(try await ids() == ["n1", "n2", "n3", "n4", "n5"])
        #expect(try await ids("--tag", "work") == ["n2", "n4", "n5"])
        #expect(try await ids("--tag", "work", "--sort", "due", "--limit", "2") == ["n2", "n4"])
        #expect(try await ids("--due-before", "2026-12-01", "--sort", "due") == ["n2", "n4"])
        #expect(try await ids("--tag", "home", "--sort", "title") == ["n5", "n3", "n1"])
        #expect(try await ids("--tag", "nothing") == [])
        #expect(try await ids("--limit", "0") == [])

        let lined = try await cli.ok("list", "--store", cli.store, "--tag", "work", "--sort", "due")
        #expect(lined.split(separator: "\n").map { $0.prefix(2) } == ["n2", "n4", "n5"])

        #expect(try await cli.ok("count", "--store", cli.store) == "5\n")
        #expect(try await cli.ok("count", "--store", cli.store, "--tag", "home") == "3\n")
        #expect(try await cli.ok("count", "--store", cli.store, "--tag", "work", "--due-before", "2026-12-01") == "2\n")

        // The index follows later changes made by other commands.
        try await cli.ok("rm", "--store", cli.store, "n2")
        #expect(try await ids("--tag", "work") == ["n4", "n5"])
        #expect(try await cli.ok("count", "--store", cli.store, "--tag", "work") == "2\n")

        let bad = try await cli("list", "--store", cli.store, "--due-before", "soon")
        #expect(bad.status != 0 && bad.stderr.contains("YYYY-MM-DD"))
    }

    @Test func sortByUpdatedPutsTheLatestChangeFirstAndNotesOfOlderVersionsLast() async throws {
        let cli = ForkNotes()
        // A version-2 build writes no change time.
        let version2 = ["FORKNOTES_MODEL_VERSION": "2"]
        #expect(try await cli("init", "--store", cli.store, environment: version2).status == 0)
        let old = try await cli("add", "--store", cli.store, "--title", "from version 2", environment: version2)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await cli.ok("add", "--store", cli.store, "--title", "first").trimmingCharacters(in: .whitespacesAndNewlines)
        try await Task.sleep(for: .milliseconds(1100))  // the change time is stored to the second or finer
        let second = try await cli.ok("add", "--store", cli.store, "--title", "second").trimmingCharacters(in: .whitespacesAndNewlines)
        func sorted() async throws -> [String] {
            let output = try await cli.ok("list", "--store", cli.store, "--json", "--sort", "updated")
            let notes = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
            return notes.compactMap { $0["id"] as? String }
        }
        #expect(try await sorted() == [second, first, old])
        try await Task.sleep(for: .milliseconds(1100))
        try await cli.ok("edit", "--store", cli.store, first, "--title", "first, edited")
        #expect(try await sorted() == [first, second, old])
        let notes = try await cli.notes()
        #expect(notes.first { $0["id"] as? String == old }?["updatedAt"] == nil)
        #expect(notes.first { $0["id"] as? String == first }?["updatedAt"] is String)
    }

    @Test func anEmptyStoreListsAnEmptyJSONArray() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        #expect(try await cli.notes().isEmpty)
        #expect(try await cli.ok("count", "--store", cli.store) == "0\n")
    }

    private func folderFile(_ cli: ForkNotes, _ name: String, _ contents: String) -> String {
        let path = cli.folder.child(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8))
        return path
    }
}
