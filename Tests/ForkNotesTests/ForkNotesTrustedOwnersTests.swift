import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes trusted owners")
struct ForkNotesTrustedOwnersTests {
    /// `FORKNOTES_TRUSTED_OWNERS` names a file of public key lines: a new replica's sync then
    /// refuses a store shared by anyone else (exit 1, naming the rule), takes its owner's, and
    /// a file it cannot read as keys is bad usage (64) naming the line.
    @Test func syncTakesOnlyAStoreSharedByATrustedOwner() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        let ownerKey = cli.folder.child("owner"), strangerKey = cli.folder.child("stranger")
        for path in [ownerKey, strangerKey] {
            #expect(try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "someone@host", "-f", path]).status == 0)
        }
        let owner = ["FORKNOTES_SIGNING_KEY": ownerKey]
        let stranger = try String(contentsOfFile: strangerKey + ".pub", encoding: .utf8)
        #expect(try await cli("init", "--store", cli.store, "--remote", remote, environment: owner).status == 0)
        #expect(try await cli("share", "add", "--store", cli.store, "--write", "--name", "stranger", stranger, environment: owner).status == 0)
        #expect(try await cli("add", "--store", cli.store, "--title", "shared", environment: owner).status == 0)
        #expect(try await cli("sync", "--store", cli.store, environment: owner).status == 0)

        let trustsStranger = cli.folder.child("trusts-stranger"), trustsOwner = cli.folder.child("trusts-owner")
        let broken = cli.folder.child("broken")
        try stranger.write(toFile: trustsStranger, atomically: true, encoding: .utf8)
        let ownerLine = try String(contentsOfFile: ownerKey + ".pub", encoding: .utf8)
        try "# the team's owners\n\n\(ownerLine)".write(toFile: trustsOwner, atomically: true, encoding: .utf8)
        try "\(ownerLine)ssh-ed25519 not-base64\n".write(toFile: broken, atomically: true, encoding: .utf8)

        let replica = cli.folder.child("replica")
        #expect(try await cli("init", "--store", replica, "--remote", remote).status == 0)
        let refused = try await cli("sync", "--store", replica, environment: ["FORKNOTES_TRUSTED_OWNERS": trustsStranger])
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("trusted owners"), "\(refused.stderr)")
        #expect(try await cli.ok("list", "--store", replica).contains("shared") == false)

        let bad = try await cli("sync", "--store", replica, environment: ["FORKNOTES_TRUSTED_OWNERS": broken])
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("FORKNOTES_TRUSTED_OWNERS") && bad.stderr.contains("line 2"), "\(bad.stderr)")

        let taken = try await cli("sync", "--store", replica, environment: ["FORKNOTES_TRUSTED_OWNERS": trustsOwner])
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(try await cli.ok("list", "--store", replica).contains("shared"))
        #expect(try await git("--git-dir", replica, "fsck", "--strict").status == 0)
    }
}
