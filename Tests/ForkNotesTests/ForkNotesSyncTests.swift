import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes sync and status")
struct ForkNotesSyncTests {
    @Test func twoStoresSyncThroughARemote() async throws {
        let cli = ForkNotes()
        let (_, stores) = try await cli.stores("a", "b")
        let (a, b) = (stores[0], stores[1])
        try await cli.ok("add", "--store", a, "--title", "from a")
        try await cli.ok("add", "--store", b, "--title", "from b")
        #expect(try await cli.ok("sync", "--store", a).contains("Synced with"))
        try await cli.ok("sync", "--store", b)
        try await cli.ok("sync", "--store", a)
        // The sync brought the notes index to what it landed, before any `list`.
        #expect(try await indexedHead(inStoreAt: a) == (try await git("--git-dir", a, "rev-parse", "main")).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let titles = try await cli.ok("list", "--store", a)
        #expect(titles.contains("from a") && titles.contains("from b"))
        let status = try await cli.ok("status", "--store", b, "--json")
        let json = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
        #expect(json?["state"] as? String == "idle")
        #expect(json?["ahead"] as? Int == 0 && json?["behind"] as? Int == 0)
    }

    /// On a terminal (here `script`'s), a sync shows how far its check and its indexing have
    /// come, ending with every note it landed; piped, it shows neither.
    @Test func onATerminalASyncShowsItsIndexing() async throws {
        let cli = ForkNotes()
        let (_, stores) = try await cli.stores("a", "b", "c")
        let (a, b, c) = (stores[0], stores[1], stores[2])
        for title in ["one", "two", "three"] { try await cli.ok("add", "--store", a, "--title", title) }
        try await cli.ok("sync", "--store", a)
        let command = "'\(productsFolder())/forknotes' sync --store '\(b)'"
        let shown = try await run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(shown.status == 0, "\(shown.stdout)")
        #expect(shown.stdout.contains("Checking: ") && shown.stdout.contains("Indexing: 3/3 notes"), "\(shown.stdout.debugDescription)")
        #expect(shown.stdout.contains("Synced with"))
        let piped = try await cli("sync", "--store", c)
        #expect(piped.status == 0 && !piped.stderr.contains("Indexing") && !piped.stderr.contains("\r"), "\(piped.stderr.debugDescription)")
    }

    @Test func anUnreachableRemoteExitsWithTheOfflineCode() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "kept")
        let result = try await cli("sync", "--store", cli.store, "--remote", cli.folder.child("missing.git"))
        #expect(result.status == 3)
        #expect(result.stderr.contains("unreachable"))
        #expect(try await cli.ok("status", "--store", cli.store).contains("last error"))
        #expect(try await cli.ok("list", "--store", cli.store).contains("kept"))
        let closed = try await cli("sync", "--store", cli.store, "--remote", "git://127.0.0.1:9/notes.git")
        #expect(closed.status == 3)
    }

    @Test func aNewerModelVersionOnTheRemoteHaltsWithItsOwnCode() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        try await cli.ok("init", "--store", cli.store, "--remote", remote)
        try await cli.ok("sync", "--store", cli.store)
        let parent = try await git("--git-dir", remote, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try await git("--git-dir", remote, "rev-parse", "main^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let future = try await git(
            "--git-dir", remote, "commit-tree", tree, "-p", parent, "-m", "Future\n\nModel-Version: 999\nFormat-Version: 1\n"
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await git("--git-dir", remote, "update-ref", "refs/heads/main", future)
        try await cli.ok("add", "--store", cli.store, "--title", "local")
        let result = try await cli("sync", "--store", cli.store)
        #expect(result.status == 4)
        #expect(result.stderr.contains("999") && result.stderr.contains("model version 4"))
        #expect(try await git("--git-dir", remote, "rev-parse", "main").stdout.contains(future))
        #expect(try await cli.ok("list", "--store", cli.store).contains("local"))
    }

    @Test func aRemoteWithAPasswordInItIsRefused() async throws {
        let cli = ForkNotes()
        let result = try await cli("init", "--store", cli.store, "--remote", "https://me:hunter2@example.com/n.git")
        #expect(result.status != 0)
        #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"))
    }
}
