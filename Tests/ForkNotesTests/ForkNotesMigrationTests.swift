import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes model versions 1 and 2")
struct ForkNotesMigrationTests {
    static let version1 = ["FORKNOTES_MODEL_VERSION": "1"]

    /// The package's root, to find the checked-in fixtures and schema snapshots.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func aVersionOneReplicaHaltsOnVersionTwoDataAndVersionTwoMergesVersionOne() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        let old = cli.folder.child("old"), new = cli.folder.child("new")
        // The version-1 replica shares a done note first.
        #expect(try await cli("init", "--store", old, "--remote", remote, environment: Self.version1).status == 0)
        let oldNote = try await cli("add", "--store", old, "--title", "from v1", environment: Self.version1).stdout
            .split(separator: "\n").last.map(String.init) ?? ""
        #expect(try await cli("edit", "--store", old, oldNote, "--done", environment: Self.version1).status == 0)
        #expect(try await cli("sync", "--store", old, environment: Self.version1).status == 0)
        // The version-2 replica migrates and merges it, then shares version-2 data.
        try await cli.ok("init", "--store", new, "--remote", remote)
        try await cli.ok("add", "--store", new, "--title", "from v2", "--due", "2027-01-31")
        try await cli.ok("sync", "--store", new)
        let listed = try JSONSerialization.jsonObject(with: Data(try await cli.ok("list", "--store", new, "--json").utf8)) as? [[String: Any]] ?? []
        let migrated = try #require(listed.first { $0["title"] as? String == "from v1" })
        #expect(migrated["done"] as? Bool == true && migrated["completedAt"] != nil)
        #expect(listed.contains { $0["title"] as? String == "from v2" && ($0["due"] as? String)?.hasPrefix("2027-01-31") == true })
        // The version-1 replica now halts, naming both versions, and keeps working locally.
        let halted = try await cli("sync", "--store", old, environment: Self.version1)
        #expect(halted.status == 4)
        #expect(halted.stderr.contains("model version 4") && halted.stderr.contains("model version 1"))
        #expect(try await cli("add", "--store", old, "--title", "offline work", environment: Self.version1).status == 0)
        #expect(try await cli.ok("replay", "--store", new).contains("read with model version 4"))
    }

    @Test func theVersionOneFixtureReadsAsExpected() async throws {
        let cli = ForkNotes()
        let copy = cli.folder.child("fixture.store")
        try FileManager.default.copyItem(atPath: Self.root + "/Tests/Fixtures/notes-v1.store", toPath: copy)
        let listed = try JSONSerialization.jsonObject(with: Data(try await cli.ok("list", "--store", copy, "--json").utf8)) as? [[String: Any]] ?? []
        #expect(Set(listed.compactMap { $0["title"] as? String }) == ["Buy milk", "Ship v1", "Call Ada"])
        let shipped = try #require(listed.first { $0["title"] as? String == "Ship v1" })
        #expect(shipped["done"] as? Bool == true && shipped["body"] as? String == "Fork Yeah!!!")
        #expect(try await cli.ok("replay", "--store", copy).contains("All 7 commit(s)"))
        let log = try await cli.ok("log", "--store", copy)
        #expect(log.contains("v1") && !log.contains("v2") && !log.contains("v3"))
    }

    @Test func replayNamesTheFirstCommitItCannotRead() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "good")
        // A hand-made commit whose note lacks its title.
        let parent = try await git("--git-dir", cli.store, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try await git("--git-dir", cli.store, "hash-object", "-w", "--stdin",
                           input: #"{"id":"bad","modelVersion":2,"record":{"id":"bad","body":"","tags":[]}}"#).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let shard = try await git("hash-object", "--stdin", input: "bad").stdout
        let path = "records/\(shard.prefix(2))/\(shard.dropFirst(2).prefix(2))/bad.json"
        try await git("--git-dir", cli.store, "read-tree", "--empty")
        let tree = try await git("--git-dir", cli.store, "rev-parse", "main^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let index = cli.folder.child("index")
        let env = ["GIT_INDEX_FILE": index]
        try await git("--git-dir", cli.store, "read-tree", tree, environment: env)
        try await git("--git-dir", cli.store, "update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)", environment: env)
        let newTree = try await git("--git-dir", cli.store, "write-tree", environment: env).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let commit = try await git("--git-dir", cli.store, "commit-tree", newTree, "-p", parent, "-m",
                             "Broken note\n\nModel-Version: 2\nFormat-Version: 1\n").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await git("--git-dir", cli.store, "update-ref", "refs/heads/main", commit)
        let result = try await cli("replay", "--store", cli.store)
        #expect(result.status == 1)
        #expect(result.stderr.contains(String(commit.prefix(10))) && result.stderr.contains("Broken note"))
        #expect(result.stderr.contains("title"))
    }

    @Test func theCheckedInSchemaSnapshotsAreCurrentAndTheChangeIsSafe() async throws {
        let cli = ForkNotes()
        let output = cli.folder.child("schema")
        #expect(try await cli("schema", "--output", output, environment: Self.version1).status == 0)
        let second = try await cli("schema", "--output", output, environment: ["FORKNOTES_MODEL_VERSION": "2"])
        #expect(second.status == 0 && second.stdout.contains("No risky changes from version 1"))
        let third = try await cli("schema", "--output", output, environment: ["FORKNOTES_MODEL_VERSION": "3"])
        #expect(third.status == 0 && third.stdout.contains("No risky changes from version 2"))
        let fourth = try await cli("schema", "--output", output)
        #expect(fourth.status == 0 && fourth.stdout.contains("No risky changes from version 3"))
        for version in [1, 2, 3, 4] {
            let generated = FileManager.default.contents(atPath: "\(output)/Note/v\(version).json")
            let checkedIn = FileManager.default.contents(atPath: "\(Self.root)/Schema/forknotes/Note/v\(version).json")
            #expect(generated != nil && generated == checkedIn, "Schema/forknotes/Note/v\(version).json is out of date")
        }
    }
}
