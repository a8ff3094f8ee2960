import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes share through merges")
struct ForkNotesShareMergeTests {
    /// The case from the command line: a writer's signed merge whose second parent is
    /// the store's first commit, pushed to the remote with git's plumbing, tries to un-share
    /// the notes. `sync` refuses it (exit 1, naming the rule) and `share list` is unchanged.
    @Test func aWritersMergeWithTheFirstCommitDoesNotUnshare() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        let ownerKey = cli.folder.child("owner"), writerKey = cli.folder.child("writer")
        for path in [ownerKey, writerKey] {
            #expect(try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path]).status == 0)
        }
        let owner = ["FORKNOTES_SIGNING_KEY": ownerKey]
        let writer = try String(contentsOfFile: writerKey + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await cli("init", "--store", cli.store, "--remote", remote, environment: owner).status == 0)
        #expect(try await cli("share", "add", "--store", cli.store, "--write", "--name", "writer", writer, environment: owner).status == 0)
        #expect(try await cli("add", "--store", cli.store, "--title", "shared", environment: owner).status == 0)
        #expect(try await cli("sync", "--store", cli.store, environment: owner).status == 0)

        func remoteGit(_ arguments: [String], input: String? = nil) async throws -> String {
            let result = try await git(["--git-dir", remote] + arguments, input: input)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let head = try await remoteGit(["rev-parse", "main"]), first = try await remoteGit(["rev-list", "--max-parents=0", "main"])
        let entries = try await remoteGit(["ls-tree", head]).split(separator: "\n").filter { !$0.hasSuffix("\tparticipants.json") }
        let unshared = try await remoteGit(["mktree"], input: entries.map { "\($0)\n" }.joined())
        let merge = try await remoteGit([
            "-c", "gpg.format=ssh", "-c", "user.signingKey=\(writerKey)", "commit-tree", "-S", unshared, "-p", head, "-p", first,
            "-m", "Merge\n\nModel-Version: 1\nFormat-Version: 1\n",
        ])
        _ = try await remoteGit(["update-ref", "refs/heads/main", merge])

        let sync = try await cli("sync", "--store", cli.store, environment: owner)
        #expect(sync.status == 1, "\(sync.stdout)")
        #expect(sync.stderr.contains("only an owner"), "\(sync.stderr)")
        let list = try await cli.ok("share", "list", "--store", cli.store)
        #expect(list.contains("write  writer") && !list.contains("Not shared"))
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }
}
