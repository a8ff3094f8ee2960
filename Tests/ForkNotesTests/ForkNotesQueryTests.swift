import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes list and count through the query index")
struct ForkNotesQueryTests {
    @Test func listFiltersSortsAndLimitsAndCountAgrees() throws {
        let cli = ForkNotes()
        try cli.ok("init", "--store", cli.store)
        let lines = [
            #"{"id":"n1","title":"Pay rent","body":"","tags":["home","money"],"done":false,"due":"2026-12-01T00:00:00Z"}"#,
            #"{"id":"n2","title":"Call Ann","body":"","tags":["work"],"done":false,"due":"2026-11-25T00:00:00Z"}"#,
            #"{"id":"n3","title":"Buy milk","body":"","tags":["home"],"done":true}"#,
            #"{"id":"n4","title":"Ship release","body":"","tags":["work"],"done":false,"due":"2026-11-30T00:00:00Z"}"#,
            #"{"id":"n5","title":"Answer mail","body":"","tags":["work","home"],"done":false,"due":"2027-01-10T00:00:00Z"}"#,
        ]
        let input = folderFile(cli, "notes.jsonl", lines.joined(separator: "\n") + "\n")
        try cli.ok("import", "--store", cli.store, input)

        func ids(_ arguments: String...) throws -> [String] {
            let output = try run(productsFolder() + "/forknotes", ["list", "--store", cli.store, "--json"] + arguments)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            let notes = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
            return notes.compactMap { $0["id"] as? String }
        }
        #expect(try ids() == ["n1", "n2", "n3", "n4", "n5"])
        #expect(try ids("--tag", "work") == ["n2", "n4", "n5"])
        #expect(try ids("--tag", "work", "--sort", "due", "--limit", "2") == ["n2", "n4"])
        #expect(try ids("--due-before", "2026-12-01", "--sort", "due") == ["n2", "n4"])
        #expect(try ids("--tag", "home", "--sort", "title") == ["n5", "n3", "n1"])
        #expect(try ids("--tag", "nothing") == [])
        #expect(try ids("--limit", "0") == [])

        let lined = try cli.ok("list", "--store", cli.store, "--tag", "work", "--sort", "due")
        #expect(lined.split(separator: "\n").map { $0.prefix(2) } == ["n2", "n4", "n5"])

        #expect(try cli.ok("count", "--store", cli.store) == "5\n")
        #expect(try cli.ok("count", "--store", cli.store, "--tag", "home") == "3\n")
        #expect(try cli.ok("count", "--store", cli.store, "--tag", "work", "--due-before", "2026-12-01") == "2\n")

        // The index follows later changes made by other commands.
        try cli.ok("rm", "--store", cli.store, "n2")
        #expect(try ids("--tag", "work") == ["n4", "n5"])
        #expect(try cli.ok("count", "--store", cli.store, "--tag", "work") == "2\n")

        let bad = try cli("list", "--store", cli.store, "--due-before", "soon")
        #expect(bad.status != 0 && bad.stderr.contains("YYYY-MM-DD"))
    }

    @Test func sortByUpdatedPutsTheLatestChangeFirstAndNotesOfOlderVersionsLast() throws {
        let cli = ForkNotes()
        // A version-2 build writes no change time.
        let version2 = ["FORKNOTES_MODEL_VERSION": "2"]
        #expect(try cli("init", "--store", cli.store, environment: version2).status == 0)
        let old = try cli("add", "--store", cli.store, "--title", "from version 2", environment: version2)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try cli.ok("add", "--store", cli.store, "--title", "first").trimmingCharacters(in: .whitespacesAndNewlines)
        Thread.sleep(forTimeInterval: 1.1)  // the change time is stored to the second or finer
        let second = try cli.ok("add", "--store", cli.store, "--title", "second").trimmingCharacters(in: .whitespacesAndNewlines)
        func sorted() throws -> [String] {
            let output = try cli.ok("list", "--store", cli.store, "--json", "--sort", "updated")
            let notes = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
            return notes.compactMap { $0["id"] as? String }
        }
        #expect(try sorted() == [second, first, old])
        Thread.sleep(forTimeInterval: 1.1)
        try cli.ok("edit", "--store", cli.store, first, "--title", "first, edited")
        #expect(try sorted() == [first, second, old])
        let notes = try cli.notes()
        #expect(notes.first { $0["id"] as? String == old }?["updatedAt"] == nil)
        #expect(notes.first { $0["id"] as? String == first }?["updatedAt"] is String)
    }

    @Test func anEmptyStoreListsAnEmptyJSONArray() throws {
        let cli = ForkNotes()
        try cli.ok("init", "--store", cli.store)
        #expect(try cli.notes().isEmpty)
        #expect(try cli.ok("count", "--store", cli.store) == "0\n")
    }

    private func folderFile(_ cli: ForkNotes, _ name: String, _ contents: String) -> String {
        let path = cli.folder.child(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents.utf8))
        return path
    }
}
