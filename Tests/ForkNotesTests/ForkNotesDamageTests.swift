import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes with damaged data and hostile text")
struct ForkNotesDamageTests {
    /// Commits a note file by hand (as `git` would let anyone do) at the path of `id`.
    private func commitByHand(_ cli: ForkNotes, id: String, content: String) async throws {
        let path = RecordPath(id: id)
        let blob = try await git("--git-dir", cli.store, "hash-object", "-w", "--stdin", input: content).stdout.trimmed
        let base = try await git("--git-dir", cli.store, "rev-parse", "main").stdout.trimmed
        let index = cli.folder.child("index")
        let environment = ["GIT_INDEX_FILE": index]
        try await git("--git-dir", cli.store, "read-tree", "main", environment: environment)
        try await git("--git-dir", cli.store, "update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)", environment: environment)
        let tree = try await git("--git-dir", cli.store, "write-tree", environment: environment).stdout.trimmed
        let commit = try await git(
            "--git-dir", cli.store, "commit-tree", tree, "-p", base, "-m", "By hand\n\nModel-Version: 2\nFormat-Version: 1\n"
        ).stdout.trimmed
        try await git("--git-dir", cli.store, "update-ref", "refs/heads/main", commit)
    }

    @Test func aDamagedNoteIsNamedAndTheOthersStillList() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "Fine")
        try await commitByHand(cli, id: "broken", content: "{ not json")
        try await commitByHand(cli, id: "phantom", content: #"{"id":"someone-else","modelVersion":2,"record":{"id":"someone-else","title":"p","body":"","tags":[]}}"#)

        let list = try await cli("list", "--store", cli.store)
        #expect(list.status == 1)
        #expect(list.stdout.contains("Fine"))
        #expect(list.stderr.contains(RecordPath(id: "broken").description) && list.stderr.contains("not valid JSON"))
        #expect(list.stderr.contains("someone-else"))
        #expect(list.stderr.contains("forknotes doctor"))

        let doctor = try await cli("doctor", "--store", cli.store)
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("fork main") && doctor.stdout.contains("--repair"))
        let repaired = try await cli("doctor", "--store", cli.store, "--repair")
        #expect(repaired.status == 0 && repaired.stdout.contains("removed 2 damaged file(s)"))
        #expect(try await cli.ok("doctor", "--store", cli.store).contains("No problems found."))
        let after = try await cli("list", "--store", cli.store)
        #expect(after.status == 0 && after.stdout.contains("Fine") && after.stderr.isEmpty)
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }

    @Test func controlCharactersInDataAreEscapedOnTheTerminal() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let hostile = "Red\u{1B}[31m alert\u{7}\u{202E}txt.exe"
        let id = try #require(try await cli.ok("add", "--store", cli.store, "--title", hostile, "--body", "line\u{1B}[2J").split(separator: "\n").last)
        let list = try await cli.ok("list", "--store", cli.store)
        #expect(!list.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        #expect(list.contains("Red\\u{1b}[31m alert\\u{7}\\u{202e}txt.exe"))
        // --json keeps the data exactly, escaped by JSON's rules.
        #expect(try await cli.notes().first?["title"] as? String == hostile)
        try await cli.ok("rm", "--store", cli.store, String(id))
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

@Suite("forknotes share")
struct ForkNotesShareTests {
    @Test func ownersShareAndUnshareBySshKey() async throws {
        let cli = ForkNotes()
        let ownerKey = cli.folder.child("owner"), friendKey = cli.folder.child("friend")
        for path in [ownerKey, friendKey] {
            #expect(try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path]).status == 0)
        }
        let signing = ["FORKNOTES_SIGNING_KEY": ownerKey]
        let friend = try String(contentsOfFile: friendKey + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await cli("init", "--store", cli.store, environment: signing).status == 0)
        let unsigned = try await cli("share", "add", "--store", cli.store, "--write", friend)
        #expect(unsigned.status != 0 && unsigned.stderr.contains("FORKNOTES_SIGNING_KEY"))
        #expect(try await cli("share", "add", "--store", cli.store, "--write", "--name", "friend", friend, environment: signing).status == 0)
        let list = try await cli.ok("share", "list", "--store", cli.store)
        #expect(list.contains("owner  owner") && list.contains("write  friend"))
        let asFriend = try await cli("share", "remove", "--store", cli.store, friend, environment: ["FORKNOTES_SIGNING_KEY": friendKey])
        #expect(asFriend.status != 0 && asFriend.stderr.contains("not an owner"))
        #expect(try await cli("share", "remove", "--store", cli.store, friend, environment: signing).status == 0)
        #expect(!(try await cli.ok("share", "list", "--store", cli.store)).contains("friend"))
        // Every commit is signed by the owner's key.
        let allowed = cli.folder.child("allowed")
        let owner = try String(contentsOfFile: ownerKey + ".pub", encoding: .utf8)
        try "forkstore@localhost \(owner)".write(toFile: allowed, atomically: true, encoding: .utf8)
        #expect(try await git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "--git-dir", cli.store, "verify-commit", "main").status == 0)
    }

    /// A store made by an owner signing with `ownerKey`, and a friend's key pair beside it.
    private static func storeSignedByAnOwner() async throws -> (
        cli: ForkNotes, ownerKey: String, friendKey: String, signing: [String: String]
    ) {
        let cli = ForkNotes()
        let ownerKey = cli.folder.child("owner"), friendKey = cli.folder.child("friend")
        for path in [ownerKey, friendKey] {
            #expect(try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path]).status == 0)
        }
        let signing = ["FORKNOTES_SIGNING_KEY": ownerKey]
        #expect(try await cli("init", "--store", cli.store, environment: signing).status == 0)
        return (cli, ownerKey, friendKey, signing)
    }

    @Test func shareAddAndRemoveTakeThePathOfAPubFile() async throws {
        let (cli, _, friendKey, signing) = try await Self.storeSignedByAnOwner()
        let added = try await cli("share", "add", "--store", cli.store, "--write", "--name", "friend", friendKey + ".pub", environment: signing)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try await cli.ok("share", "list", "--store", cli.store).contains("write  friend"))
        // A path relative to the working folder, and `~`, which the shell expands.
        let relative = try await run(
            "/bin/sh", ["-c", #"cd "$1" && exec "$2" share remove --store "$3" friend.pub"#, "sh", cli.folder.path, productsFolder() + "/forknotes", cli.store],
            environment: signing)
        #expect(relative.status == 0, "\(relative.stderr)")
        #expect(!(try await cli.ok("share", "list", "--store", cli.store)).contains("friend"))
        let home = try await run(
            "/bin/sh", ["-c", #"exec "$1" share add --store "$2" --read --name again ~/friend.pub"#, "sh", productsFolder() + "/forknotes", cli.store],
            environment: signing.merging(["HOME": cli.folder.path]) { _, new in new })
        #expect(home.status == 0, "\(home.stderr)")
        #expect(try await cli.ok("share", "list", "--store", cli.store).contains("read  again"))
    }

    @Test func aKeyFileThatIsMissingPrivateTooLargeOrNoPublicKeyIsRefusedClearly() async throws {
        let (cli, ownerKey, friendKey, signing) = try await Self.storeSignedByAnOwner()
        let files = [
            "text": "just some words\n", "rsa.pub": "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ me@host\n", "empty.pub": "",
            "two.pub": try String(contentsOfFile: friendKey + ".pub", encoding: .utf8) + (try String(contentsOfFile: ownerKey + ".pub", encoding: .utf8)),
        ]
        for (name, content) in files { try content.write(toFile: cli.folder.child(name), atomically: true, encoding: .utf8) }
        try Data(count: 1 << 20).write(to: URL(fileURLWithPath: cli.folder.child("large.pub")))
        let privateKey = try String(contentsOfFile: friendKey, encoding: .utf8)
        let cases: [(path: String, says: String)] = [
            (cli.folder.child("missing.pub"), "No file at '\(cli.folder.child("missing.pub"))', and it is not a public key line"),
            (friendKey, "it is a private key, which stays with its owner; give its public half, '\(friendKey).pub'"),
            (cli.folder.child("large.pub"), "it is larger than 16 KiB"),
            ("/dev/zero", "it is not a file"),
            (cli.folder.path, "it is not a file"),
            (cli.folder.child("text"), "it holds no public key line"),
            (cli.folder.child("rsa.pub"), "it holds an ssh-rsa key; participants have Ed25519 keys"),
            (cli.folder.child("empty.pub"), "it is empty"),
            (cli.folder.child("two.pub"), "it holds 2 lines"),
        ]
        let commands = [["share", "add", "--store", cli.store, "--write"], ["share", "remove", "--store", cli.store]]
        for (index, (path, says)) in cases.enumerated() {
            let command = commands[index % commands.count]
            let result = try await run(productsFolder() + "/forknotes", command + [path], environment: signing)
            #expect(result.status == 1, "\(command) \(path): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(command) \(path): \(result.stderr)")
            // Nothing of a private key is ever printed.
            for line in privateKey.split(separator: "\n") { #expect(!result.stderr.contains(line) && !result.stdout.contains(line)) }
        }
        #expect(try await cli.ok("share", "list", "--store", cli.store).contains("Not shared"))
    }
}
