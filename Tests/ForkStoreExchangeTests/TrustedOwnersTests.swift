import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A new replica trusts the first shared history it takes in, unless it names trusted owners
/// (`ExchangeOptions.trustedOwners`, FORMAT.md §9.3): then it takes only a store shared, by a
/// signed commit, by one of them.
@Suite("Trusted owners")
struct TrustedOwnersTests {
    /// A new replica that trusts `owners`.
    private func trustingReplica(_ name: String, in lab: SyncLab, owners: [TestKey]) throws -> (RecordStore<Task2>, Exchange) {
        let store = try RecordStore<Task2>.create(at: lab.folder.child(name))
        let options = ExchangeOptions(trustedOwners: owners.map(\.key.publicKey))
        return (store, Exchange(store: store, remote: try Remote(lab.remotePath), options: options))
    }

    /// The remote holds mallory's store, shared with mallory. Without trusted owners a new
    /// replica takes it (trust on first use); trusting alice, it refuses it and takes nothing.
    @Test func aStrangersSharedStoreIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), mallory = try await TestKey("mallory", in: lab.folder)
        let (m, mSync) = try lab.signedReplica("mallory", key: mallory)
        try await m.setParticipants([mallory.participant(.owner, "mallory"), alice.participant(.write, "alice")])
        try await m.save(Task2(id: "bait", title: "from mallory"))
        try await mSync.sync()

        let (firstUse, firstUseSync) = try lab.signedReplica("first-use", key: nil)
        try await firstUseSync.sync()
        #expect(try await firstUse.record("bait") != nil)

        let (careful, carefulSync) = try trustingReplica("careful", in: lab, owners: [alice])
        let before = try await careful.head()
        let rule = await expectSharingRefusal(carefulSync, saying: "trusted owners")
        #expect(rule?.contains(mallory.key.publicKey.description) == true, "\(rule ?? "")")
        #expect(try await careful.head() == before)
        #expect(try await careful.participants().isEmpty)
        #expect(try await careful.record("bait") == nil)
        #expect(try await git("--git-dir", careful.path, "fsck", "--strict").status == 0)
    }

    /// Sharing commits that name a trusted owner but that the owner did not sign as an owner
    /// are refused: unsigned, or signed by the owner while naming someone else the owner.
    @Test func aSharingCommitTheTrustedOwnerDidNotSignAsOwnerIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), mallory = try await TestKey("mallory", in: lab.folder)
        let (plain, plainSync) = try lab.signedReplica("plain", key: nil)
        try await plain.save(Task2(id: "x", title: "not shared yet"))
        try await plainSync.sync()
        let head = try await lab.remoteGit("rev-parse", "main")
        func file(_ entries: String...) async throws -> String {
            try await lab.canonicalBlob(#"{"participants":["# + entries.joined(separator: ",") + "]}")
        }
        let aliceOwner = #"{"access":"owner","key":"\#(alice.key.publicKey)","name":"alice"}"#
        let aliceWriter = #"{"access":"write","key":"\#(alice.key.publicKey)","name":"alice"}"#
        let malloryOwner = #"{"access":"owner","key":"\#(mallory.key.publicKey)","name":"mallory"}"#

        let unsigned = try await lab.remoteGit([
            "commit-tree", try lab.tree("\(head)^{tree}", withParticipants: try file(aliceOwner)), "-p", head,
            "-m", "Share\n\nModel-Version: 1\nFormat-Version: 1\n",
        ])
        let asWriter = try await lab.craftSignedCommit(
            tree: try lab.tree("\(head)^{tree}", withParticipants: try file(aliceWriter, malloryOwner)), parents: [head], key: alice)
        let byMallory = try await lab.craftSignedCommit(
            tree: try lab.tree("\(head)^{tree}", withParticipants: try file(aliceOwner, malloryOwner)), parents: [head], key: mallory)
        for (index, (commit, words)) in [(unsigned, "not signed"), (asWriter, "trusted owners"), (byMallory, "trusted owners")].enumerated() {
            try await lab.remoteGit("update-ref", "refs/heads/main", commit)
            let (careful, carefulSync) = try trustingReplica("careful-\(index)", in: lab, owners: [alice])
            await expectSharingRefusal(carefulSync, saying: words)
            #expect(try await careful.participants().isEmpty)
        }
        // A remote that is not shared at all is refused too.
        try await lab.remoteGit("update-ref", "refs/heads/main", head)
        let (careful, carefulSync) = try trustingReplica("careful-plain", in: lab, owners: [alice])
        await expectSharingRefusal(carefulSync, saying: "not shared")
        #expect(try await careful.record("x") == nil)
    }

    /// Alice's own store, shared by her signed commit, is taken by a replica that trusts her
    /// (among others), and later fetches go on as usual.
    @Test func theTrustedOwnersStoreIsTaken() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), bob = try await TestKey("bob", in: lab.folder)
        let carol = try await TestKey("carol", in: lab.folder)
        let (a, aSync) = try lab.signedReplica("alice", key: alice)
        try await a.save(Task2(id: "early", title: "before sharing"))
        try await a.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await a.save(Task2(id: "x", title: "shared"))
        try await aSync.sync()

        let (c, cSync) = try trustingReplica("carol", in: lab, owners: [bob, alice])
        try await cSync.sync()
        #expect(try await c.record("x")?.title == "shared")
        try await a.save(Task2(id: "y", title: "later"))
        try await aSync.sync()
        try await cSync.sync()
        #expect(try await c.record("y")?.title == "later")
        #expect(try await c.participants().map(\.name) == ["alice", "carol"])
        #expect(try await git("--git-dir", c.path, "fsck", "--strict").status == 0)
    }
}
