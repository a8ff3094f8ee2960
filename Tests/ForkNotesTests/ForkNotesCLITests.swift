import ForkStoreTestSupport
import Foundation
import Testing

/// Runs the built `forknotes` binary as a user would.
struct ForkNotes {
    let folder = TemporaryFolder("forknotes-test")
    var store: String { folder.child("notes") }

    /// Runs a command on a thread of its own (the cooperative pool stays free) and returns
    /// how it ended.
    @discardableResult
    func callAsFunction(_ arguments: String..., environment: [String: String] = [:]) async throws -> ProcessResult {
        try await run(productsFolder() + "/forknotes", arguments, environment: environment)
    }

    /// Runs a command that must succeed, returning its standard output.
    @discardableResult
    func ok(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await run(productsFolder() + "/forknotes", arguments)
        #expect(result.status == 0, "forknotes \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// An empty bare remote in the test's folder and new stores beside it, each syncing with
    /// it: the remote's path, then each store's.
    func stores(_ names: String..., remote: String = "remote.git") async throws -> (remote: String, stores: [String]) {
        let remote = folder.child(remote)
        try await git("init", "--bare", "-q", "-b", "main", remote)
        var stores: [String] = []
        for name in names {
            stores.append(folder.child(name))
            try await ok("init", "--store", folder.child(name), "--remote", remote)
        }
        return (remote, stores)
    }

    func notes(fork: String = "main") async throws -> [[String: Any]] {
        let output = try await ok("list", "--store", store, "--fork", fork, "--json")
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
    }
}

@Suite("forknotes, the sample CLI")
struct ForkNotesCLITests {
    @Test func addEditListRemove() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let added = try await cli.ok("add", "--store", cli.store, "--title", "Groceries", "--body", "milk", "--tag", "home", "--tag", "shop")
        let id = try #require(added.split(separator: "\n").last.map(String.init))
        #expect(id.count == 12)
        try await cli.ok("edit", "--store", cli.store, id, "--title", "Groceries!", "--add-tag", "urgent", "--remove-tag", "shop", "--done")
        let notes = try await cli.notes()
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(Set(note.keys).isSuperset(of: ["id", "title", "body", "tags", "done"]))
        #expect(Set(note.keys).isSubset(of: ["id", "title", "body", "tags", "done", "completedAt", "due", "updatedAt"]))
        #expect(note["title"] as? String == "Groceries!")
        #expect(note["body"] as? String == "milk")
        #expect(note["tags"] as? [String] == ["home", "urgent"])
        #expect(note["done"] as? Bool == true)
        try await cli.ok("edit", "--store", cli.store, id, "--undone")
        #expect(try await cli.notes().first?["done"] as? Bool == false)
        #expect(try await cli.ok("list", "--store", cli.store).contains("Groceries!"))
        try await cli.ok("rm", "--store", cli.store, id)
        #expect(try await cli.notes().isEmpty)
        let log = try await cli.ok("log", "--store", cli.store)
        #expect(log.contains("Delete note \(id)") && log.contains("v4"))
        let fsck = try await git("--git-dir", cli.store, "fsck", "--strict")
        #expect(fsck.status == 0)
    }

    @Test func forkEditMergeScenario() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let id = try await cli.ok(
            "add", "--store", cli.store, "--title", "Plan", "--body", "Fork Yeah", "--tag", "red", "--tag", "blue"
        ).split(separator: "\n").last.map(String.init) ?? ""
        try await cli.ok("fork", "create", "--store", cli.store, "phone")
        #expect(try await cli.ok("fork", "list", "--store", cli.store) == "main\nphone\n")
        try await cli.ok("edit", "--store", cli.store, id, "--body", "Fork Yeah!!!", "--title", "Plan B", "--remove-tag", "red")
        try await cli.ok("edit", "--store", cli.store, "--fork", "phone", id, "--body", "Fork yeah", "--add-tag", "green")
        let merged = try await cli.ok("merge", "--store", cli.store, "--from", "phone")
        #expect(merged.contains("Merged 'phone' into 'main'"))
        let note = try #require(try await cli.notes().first)
        #expect(note["body"] as? String == "Fork yeah!!!")
        #expect(note["title"] as? String == "Plan B")
        #expect(note["tags"] as? [String] == ["blue", "green"])
        #expect(note["done"] as? Bool == false)
        let commits = try await git("--git-dir", cli.store, "rev-list", "--count", "main").stdout
        #expect(try await cli.ok("merge", "--store", cli.store, "--from", "phone").contains("already has everything"))
        #expect(try await git("--git-dir", cli.store, "rev-list", "--count", "main").stdout == commits)
        let trailers = try await git("--git-dir", cli.store, "log", "-1", "--format=%(trailers)", "main").stdout
        #expect(trailers.contains("Merge-Strategies: add-wins-set, mergeable, properties, text"))
        #expect(trailers.contains("Merge-Conflicts: 0"))
        try await cli.ok("merge", "--store", cli.store, "--from", "main", "--into", "phone")
        #expect(try await cli.notes(fork: "phone").first?["body"] as? String == "Fork yeah!!!")
        try await cli.ok("fork", "delete", "--store", cli.store, "phone")
        #expect(try await cli.ok("fork", "list", "--store", cli.store) == "main\n")
    }

    @Test func conflictsAreShownAndRecorded() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let id = try await cli.ok("add", "--store", cli.store, "--title", "Plan").split(separator: "\n").last.map(String.init) ?? ""
        try await cli.ok("fork", "create", "--store", cli.store, "phone")
        try await cli.ok("edit", "--store", cli.store, id, "--title", "Plan A")
        try await cli.ok("edit", "--store", cli.store, "--fork", "phone", id, "--title", "Plan Z")
        let merged = try await cli.ok("merge", "--store", cli.store, "--from", "phone")
        #expect(merged.contains("conflict at /\(id)/title (last-writer-wins)"))
        let title = try await cli.notes().first?["title"] as? String
        #expect(title == "Plan A" || title == "Plan Z")
        let trailers = try await git("--git-dir", cli.store, "log", "-1", "--format=%(trailers)", "main").stdout
        #expect(trailers.contains("Merge-Conflicts: 1"))
        #expect(trailers.contains("Merge-Conflict: /\(id)/title (last-writer-wins)"))
    }

    @Test func errorsGoToStderrWithANonZeroExit() async throws {
        let cli = ForkNotes()
        let missing = try await cli("list", "--store", cli.store)
        #expect(missing.status != 0 && missing.stderr.contains("No store at") && missing.stdout.isEmpty)

        try await cli.ok("init", "--store", cli.store)
        let unknown = try await cli("edit", "--store", cli.store, "nosuchnote", "--done")
        #expect(unknown.status != 0 && unknown.stderr.contains("nosuchnote"))

        let badFork = try await cli("list", "--store", cli.store, "--fork", "bad..name")
        #expect(badFork.status != 0 && badFork.stderr.contains("bad..name") && badFork.stderr.contains(".."))

        let badCreate = try await cli("fork", "create", "--store", cli.store, "-x")
        #expect(badCreate.status != 0)

        let protected = try await cli("fork", "delete", "--store", cli.store, "main")
        #expect(protected.status != 0 && protected.stderr.contains("protected"))

        // `cloud` is the exchange's: a note added there would be lost at the next sync.
        let cloud = try await cli("add", "--store", cli.store, "--fork", "cloud", "--title", "lost?")
        #expect(cloud.status == 1 && cloud.stderr.contains("only the exchange writes it"))

        let again = try await cli("init", "--store", cli.store)
        #expect(again.status != 0 && again.stderr.contains("already exists"))
    }

    @Test func dataOfAnUnknownModelVersionIsNamed() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let parent = try await git("--git-dir", cli.store, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try await git("--git-dir", cli.store, "rev-parse", "main^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let commit = try await git(
            "--git-dir", cli.store, "commit-tree", tree, "-p", parent, "-m",
            "From the future\n\nModel-Version: 999\nFormat-Version: 1\n"
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await git("--git-dir", cli.store, "update-ref", "refs/heads/main", commit)
        let result = try await cli("list", "--store", cli.store)
        #expect(result.status != 0)
        #expect(result.stderr.contains("999"))
    }

    @Test func helpShowsExamples() async throws {
        let cli = ForkNotes()
        for command in ["init", "add", "edit", "rm", "attach", "detach", "open", "list", "import", "merge", "log", "compact", "sync", "status", "demo"] {
            let help = try await cli(command, "--help")
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example"), "no example in \(command) --help")
        }
        #expect(try await cli("--help").stdout.contains("Exit codes"))
        // `list --help` names every field `list --json` writes.
        let listHelp = try await cli("list", "--help").stdout.replacingOccurrences(of: "\n", with: " ")
        for field in ["id", "title", "body", "tags", "done", "completedAt", "due", "updatedAt", "attachments", "local"] {
            #expect(listHelp.contains(field), "list --help does not name \(field)")
        }
        #expect(try await cli("sync", "--help").stdout.replacingOccurrences(of: "\n", with: " ").contains("3 offline"))
        for sub in ["create", "list", "delete"] {
            #expect(try await cli("fork", sub, "--help").stdout.contains("Example"), "no example in fork \(sub) --help")
        }
    }

    @Test func theDemoRuns() async throws {
        let cli = ForkNotes()
        let demo = try await cli.ok("demo")
        #expect(demo.contains("== 1.") && demo.contains("== 6."))
        #expect(demo.contains("the picture's bytes are local: false") && demo.contains("same as the laptop's: true"))
        #expect(demo.contains("demo-note  [x]  Ship it today  #blue #green"))
        #expect(demo.contains("Fork yeah!!!"))
        #expect(demo.contains("(exit 4)") && demo.contains("model version 4") && demo.contains("knows model version 1"))
    }
}

@Suite("forknotes JSON output")
struct ForkNotesJSONTests {
    @Test func logAndForkListHaveJSON() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "x")
        try await cli.ok("fork", "create", "--store", cli.store, "phone")
        let log = try JSONSerialization.jsonObject(with: Data(try await cli.ok("log", "--store", cli.store, "--json").utf8)) as? [[String: Any]]
        #expect(log?.count == 2)
        #expect(log?.first?["modelVersion"] as? Int == 4)
        #expect((log?.first?["trailers"] as? [String: String])?["Format-Version"] == "1")
        let forks = try JSONSerialization.jsonObject(with: Data(try await cli.ok("fork", "list", "--store", cli.store, "--json").utf8)) as? [String]
        #expect(forks == ["main", "phone"])
    }
}
