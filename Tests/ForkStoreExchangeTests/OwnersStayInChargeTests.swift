import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Two owners removing each other at once leave someone in charge (FORMAT.md §9.1, rule 4):
/// the merge of the two removals keeps both owners, so no merge of them, whoever writes it,
/// leaves a store with writers and no owner, or a store no longer shared that takes anyone's
/// commits. Found in review: the rule gave an empty list, or only the writers.
@Suite("Owners stay in charge through merges")
struct OwnersStayInChargeTests {
    /// The two removals on the remote: bob's (of alice) on `main`, alice's (of bob) beside it
    /// under `refs/heads/alice`, both on the commit that shares the store with both owners and
    /// `others`. The `peers` sync that commit first. Returns the two heads.
    private func mutualRemoval(
        in lab: SyncLab, _ alice: TestKey, _ bob: TestKey, others: [Participant], peers: [Exchange]
    ) async throws -> (byBob: String, byAlice: String) {
        let (a, aSync) = try lab.signedReplica("alice", key: alice)
        try await a.setParticipants([alice.participant(.owner, "alice"), bob.participant(.owner, "bob")] + others)
        try await a.save(Task2(id: "x", title: "shared"))
        try await aSync.sync()
        for peer in peers { try await peer.sync() }
        let (b, bSync) = try lab.signedReplica("bob", key: bob)
        try await bSync.sync()
        try await b.setParticipants([bob.participant(.owner, "bob")] + others)
        try await a.setParticipants([alice.participant(.owner, "alice")] + others)
        try await bSync.sync()
        try await lab.remoteGit("fetch", "-q", a.path, "+refs/heads/main:refs/heads/alice")
        return (try await lab.remoteGit("rev-parse", "main"), try await lab.remoteGit("rev-parse", "alice"))
    }

    /// A participants file naming `entries` (in canonical JSON), written into the remote.
    private func participantsBlob(in lab: SyncLab, _ entries: [(TestKey, Participant.Access, String)]) async throws -> String {
        let list = entries.map { #"{"access":"\#($0.1.rawValue)","key":"\#($0.0.key.publicKey)","name":"\#($0.2)"}"# }
        return try await lab.canonicalBlob(#"{"participants":["# + list.joined(separator: ",") + "]}")
    }

    /// A stranger's unsigned merge of the two removals holding no participants (what the rule
    /// gave) un-shared the store for a replica that had seen neither; now the merge must hold
    /// both owners, which only an owner may change.
    @Test func aMergeOfTwoOwnersRemovingEachOtherStaysShared() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), bob = try await TestKey("bob", in: lab.folder)
        let (peer, peerSync) = try lab.signedReplica("peer", key: nil)
        let (byBob, byAlice) = try await mutualRemoval(in: lab, alice, bob, others: [], peers: [peerSync])
        #expect(Set(try await peer.participants().map(\.name)) == ["alice", "bob"])

        let unshared = try await lab.tree("\(byBob)^{tree}", withParticipants: nil)
        let merge = try await lab.remoteGit(["commit-tree", unshared, "-p", byBob, "-p", byAlice, "-m", "Merge\n\nModel-Version: 1\nFormat-Version: 1\n"])
        let stranger = try await lab.remoteGit(["commit-tree", unshared, "-p", merge, "-m", "Stranger\n\nModel-Version: 1\nFormat-Version: 1\n"])
        try await lab.remoteGit("update-ref", "refs/heads/main", stranger)
        await expectSharingRefusal(peerSync, saying: "not signed")
        #expect(Set(try await peer.participants().map(\.name)) == ["alice", "bob"])

        // The merge holding what the rule gives, both owners in the rule's order, is taken.
        let blob = try await participantsBlob(in: lab, [(bob, .owner, "bob"), (alice, .owner, "alice")])
        let kept = try await lab.craftSignedCommit(
            tree: try lab.tree("\(byBob)^{tree}", withParticipants: blob), parents: [byBob, byAlice], key: bob, subject: "Merge")
        try await lab.remoteGit("update-ref", "refs/heads/main", kept)
        try await peerSync.sync()
        #expect(try await peer.head().id.hex == kept)
        #expect(try await peer.participants().map(\.name) == ["bob", "alice"])
        try await expectClean(peer.path, lab.remotePath)
    }

    /// With a writer left on both sides, the rule's merge kept only the writer: a store whose
    /// participants no one could ever change again. The writer's merge holding that is refused
    /// now, and her merge holding both owners and herself (rule 4) is taken.
    @Test func aMergeKeepingOnlyTheWritersIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), bob = try await TestKey("bob", in: lab.folder)
        let carol = try await TestKey("carol", in: lab.folder)
        let (c, cSync) = try lab.signedReplica("carol", key: carol)
        let (byBob, byAlice) = try await mutualRemoval(in: lab, alice, bob, others: [carol.participant(.write, "carol")], peers: [cSync])

        let writersOnly = try await participantsBlob(in: lab, [(carol, .write, "carol")])
        let onlyCarol = try await lab.craftSignedCommit(
            tree: try lab.tree("\(byBob)^{tree}", withParticipants: writersOnly), parents: [byBob, byAlice], key: carol, subject: "Merge")
        try await lab.remoteGit("update-ref", "refs/heads/main", onlyCarol)
        await expectSharingRefusal(cSync, saying: "only an owner")
        #expect(try await c.participants().map(\.name) == ["alice", "bob", "carol"])

        let blob = try await participantsBlob(in: lab, [(bob, .owner, "bob"), (carol, .write, "carol"), (alice, .owner, "alice")])
        let kept = try await lab.craftSignedCommit(
            tree: try lab.tree("\(byBob)^{tree}", withParticipants: blob), parents: [byBob, byAlice], key: carol, subject: "Merge")
        try await lab.remoteGit("update-ref", "refs/heads/main", kept)
        try await cSync.sync()
        #expect(try await c.participants().map(\.name) == ["bob", "carol", "alice"])
        try await c.save(Task2(id: "c", title: "carol writes on"))
        try await cSync.sync()
        try await expectClean(c.path, lab.remotePath)
    }

    /// A criss-cross whose two bases each removed one owner: against each base the rule keeps
    /// one owner, a different one, and the least-access combination kept neither (not shared).
    /// Now the merge keeps both owners, and a peer takes the whole history as written.
    @Test func aCrissCrossOfTwoRemovalsKeepsBothOwners() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), bob = try await TestKey("bob", in: lab.folder)
        let (laptop, laptopSync) = try lab.signedReplica("laptop", key: alice)
        let both = [alice.participant(.owner, "alice"), bob.participant(.owner, "bob")]
        try await laptop.setParticipants(both)
        try await laptop.save(Task2(id: "x", title: "shared"))
        try await laptopSync.sync()
        let (peer, peerSync) = try lab.signedReplica("peer", key: nil)
        try await peerSync.sync()

        // Two bases: alice removes herself on `main` ({bob}), and bob on a fork ({alice}).
        // Each side merges both, then keeps the other base's owner alone.
        let root = try await laptop.head().id.hex
        let x1 = try await laptop.setParticipants([bob.participant(.owner, "bob")]).id
        let x2 = try await craft(in: laptop.path, on: root, participants: [(alice, "alice")], key: alice)
        try await laptop.createFork(Fork("x1"), at: x1)
        try await laptop.createFork(Fork("x2"), at: laptop.commit(matching: x2).id)
        try await laptop.merge(from: Fork("x2"), into: .main)
        try await laptop.createFork(Fork("side"), at: laptop.commit(matching: x2).id)
        try await laptop.merge(from: Fork("x1"), into: Fork("side"))
        try await laptop.setParticipants([alice.participant(.owner, "alice")])
        let sideHead = try await laptop.head(of: Fork("side")).id.hex
        let bobOnly = try await craft(in: laptop.path, on: sideHead, participants: [(bob, "bob")], key: alice)
        try await laptop.createFork(Fork("bob-only"), at: laptop.commit(matching: bobOnly).id)
        try await laptop.merge(from: Fork("bob-only"), into: .main)
        let bases = try await git("--git-dir", laptop.path, "merge-base", "--all", "main^1", "main^2").stdout.split(separator: "\n")
        #expect(Set(bases.map(String.init)) == [x1.hex, x2])
        #expect(try await laptop.participants().map(\.name) == ["alice", "bob"])
        #expect(try await laptop.participants().allSatisfy { $0.access == .owner })

        try await laptopSync.sync()
        try await peerSync.sync()
        #expect(try await peer.head() == laptop.head())
        #expect(try await peer.participants().map(\.name) == ["alice", "bob"])
        try await expectClean(laptop.path, peer.path, lab.remotePath)
    }

    /// A commit written with git's plumbing into the store at `path`: `parent`'s tree with
    /// owners `owners`, signed by `key`. Returns its id.
    private func craft(in path: String, on parent: String, participants owners: [(TestKey, String)], key: TestKey) async throws -> String {
        func run(_ arguments: [String], input: String? = nil) async throws -> String {
            let result = try await git(["--git-dir", path, "-c", "gpg.format=ssh", "-c", "user.signingKey=\(key.file)"] + arguments, input: input)
            #expect(result.status == 0, "git \(arguments): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let list = owners.map { #"{"access":"owner","key":"\#($0.0.key.publicKey)","name":"\#($0.1)"}"# }
        let json = try CanonicalJSON.canonicalize(Array((#"{"participants":["# + list.joined(separator: ",") + "]}").utf8))
        let blob = try await run(["hash-object", "-w", "--stdin"], input: String(decoding: json, as: UTF8.self))
        let entries = try await run(["ls-tree", "\(parent)^{tree}"]).split(separator: "\n").filter { !$0.hasSuffix("\tparticipants.json") }
        let tree = try await run(["mktree"], input: entries.map { "\($0)\n" }.joined() + "100644 blob \(blob)\tparticipants.json\n")
        return try await run(["commit-tree", "-S", tree, "-p", parent, "-m", "Crafted\n\nModel-Version: 1\nFormat-Version: 1\n"])
    }

    private func expectClean(_ paths: String...) async throws {
        for path in paths {
            let fsck = try await git("--git-dir", path, "fsck", "--strict")
            #expect(fsck.status == 0, "\(path): \(fsck.stderr)")
        }
    }
}
