import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes on a store it cannot write")
struct ForkNotesReadOnlyTests {
    /// Every file under `path`, relative to it.
    private func files(under path: String) -> Set<String> {
        Set(FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
    }

    /// Runs forknotes as a user who cannot write the read-only store.
    private func asReader(_ arguments: String...) async throws -> MeasuredRun {
        let (executable, full) = ReadOnlyUser.command(productsFolder() + "/forknotes", arguments)
        return try await MeasuredRun.run(executable, full, limit: 60)
    }

    /// Reading takes no lock and writes nothing: the index lives in memory when its file
    /// cannot be written. Tried with a store never listed (no index file, and without the lock
    /// and replica files, as a copy that left them out) and one listed before it became
    /// read-only (an index file it may not update).
    @Test(.enabled(if: ReadOnlyUser.isAvailable), arguments: [false, true])
    func aReadOnlyStoreIsListedCountedAndLogged(listedBefore: Bool) async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "Groceries", "--tag", "home")
        try await cli.ok("add", "--store", cli.store, "--title", "Taxes", "--tag", "work")
        if listedBefore {
            try await cli.ok("list", "--store", cli.store)
            try await cli.ok("add", "--store", cli.store, "--title", "Later", "--tag", "work")
        } else {
            for file in ["forkstore.flock", "forkstore-packing.flock", "forkstore-replica"] {
                try FileManager.default.removeItem(atPath: cli.store + "/" + file)
            }
        }
        try ReadOnlyUser.makeReadOnly(cli.store)
        defer { try? ReadOnlyUser.makeWritable(cli.store) }
        let before = files(under: cli.store)

        let list = try await asReader("list", "--store", cli.store)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Groceries") && list.stdout.contains("Taxes"))
        let work = try await asReader("list", "--store", cli.store, "--tag", "work", "--json")
        #expect(work.status == 0, "\(work.stderr)")
        #expect(work.stdout.contains("Taxes") && !work.stdout.contains("Groceries"))
        let count = try await asReader("count", "--store", cli.store, "--tag", "work")
        #expect(count.status == 0 && count.stdout == (listedBefore ? "2\n" : "1\n"), "\(count.stderr)")
        let total = try await asReader("count", "--store", cli.store)
        #expect(total.stdout == (listedBefore ? "3\n" : "2\n"))
        let log = try await asReader("log", "--store", cli.store)
        #expect(log.status == 0 && log.stdout.contains("Create store"), "\(log.stderr)")

        // A write is refused by name, before anything changes.
        let add = try await asReader("add", "--store", cli.store, "--title", "Refused")
        #expect(add.status == 1)
        #expect(add.stderr.contains("is read-only for this user"), "\(add.stderr)")
        let fork = try await asReader("fork", "create", "--store", cli.store, "phone")
        #expect(fork.status == 1 && fork.stderr.contains("is read-only for this user"), "\(fork.stderr)")
        let remote = cli.folder.child("remote.git")
        try await git("init", "--quiet", "--bare", remote)
        let sync = try await asReader("sync", "--store", cli.store, "--remote", remote)
        #expect(sync.status == 1 && sync.stderr.contains("is read-only for this user"), "\(sync.stderr)")
        #expect(files(under: cli.store) == before)
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }

    /// A listing that fails because `main` names a commit that is not there: no index file.
    @Test func aListThatFailsOnAMissingCommitLeavesNoFile() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "One", "--tag", "home")
        try String(repeating: "1234567890", count: 4).appending("\n")
            .write(toFile: cli.store + "/refs/heads/main", atomically: true, encoding: .utf8)
        let before = files(under: cli.store)
        for command in [["list"], ["list", "--tag", "home"], ["count", "--tag", "home"]] {
            let result = try await run(productsFolder() + "/forknotes", command + ["--store", cli.store])
            #expect(result.status == 1)
            #expect(result.stderr.contains("missing"), "\(result.stderr)")
        }
        #expect(files(under: cli.store) == before)
    }

    /// A listing that fails while building the index (a tree of `main` is missing): the
    /// half-built file is not left behind, and the next listing after a repair builds it.
    @Test func aListThatFailsWhileIndexingLeavesNoFile() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        for index in 0..<5 { try await cli.ok("add", "--store", cli.store, "--title", "Note \(index)", "--tag", "home") }
        let trees = try await git("--git-dir", cli.store, "ls-tree", "-r", "-t", "main", "records").stdout
            .split(separator: "\n").filter { $0.contains(" tree ") }
        let leaf = try #require(trees.last?.split(separator: " ")[2].prefix(40))
        let object = cli.store + "/objects/" + leaf.prefix(2) + "/" + leaf.dropFirst(2)
        let saved = try Data(contentsOf: URL(fileURLWithPath: object))
        try FileManager.default.removeItem(atPath: object)
        let before = files(under: cli.store)
        let list = try await run(productsFolder() + "/forknotes", ["list", "--store", cli.store])
        #expect(list.status == 1)
        #expect(files(under: cli.store) == before)

        try saved.write(to: URL(fileURLWithPath: object))
        #expect(try await cli.notes().count == 5)
        #expect(FileManager.default.fileExists(atPath: cli.store + "/forkstore-index.sqlite"))
    }
}
