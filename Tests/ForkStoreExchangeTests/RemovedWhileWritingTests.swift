import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A writer's commit that reached the remote before an owner's removal of that writer stops
/// the owner's syncs (FORMAT.md §9.2: it cannot be told apart from a branch dated back). The
/// refusal names the commit, the signer and the way out, and the way out works.
@Suite("A writer removed while writing")
struct RemovedWhileWritingTests {
    @Test func theOwnerAddsTheKeyBackSyncsAndRemovesItAgain() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (a, aSync) = try lab.signedReplica("alice", key: alice)
        let carolEntry = carol.participant(.write, "carol")
        try await a.setParticipants([alice.participant(.owner, "alice"), carolEntry])
        try await a.save(Task2(id: "x", title: "shared"))
        try await aSync.sync()
        let (c, cSync) = try lab.signedReplica("carol", key: carol)
        try await cSync.sync()

        try await c.save(Task2(id: "c1", title: "carol, before she knew"))
        try await cSync.sync()
        let written = try await c.head().id
        try await a.setParticipants([alice.participant(.owner, "alice")])

        // The refusal says which commit, whose, and what to do.
        let before = try await a.head()
        do {
            try await aSync.sync()
            Issue.record("the removed writer's commit was taken")
        } catch {
            guard let rejected = error.storeError, rejected.code == .rejectedCommit, let commit = rejected.commit, let rule = rejected.reason else {
                Issue.record("refused for another reason: \(error)")
                return
            }
            #expect(commit == written)
            for words in ["carol", carol.key.publicKey.description, "adds carol", "back", "syncs, then removes them again"] {
                #expect(rule.contains(words), "\(rule)")
            }
        }
        #expect(try await a.head() == before)

        // The way out: add carol back as she was, sync, remove her again, sync.
        try await a.setParticipants([alice.participant(.owner, "alice"), carolEntry])
        try await aSync.sync()
        #expect(try await a.record("c1")?.title == "carol, before she knew")
        try await a.setParticipants([alice.participant(.owner, "alice")])
        try await aSync.sync()
        #expect(try await a.participants().map(\.name) == ["alice"])
        #expect(try await lab.remoteGit("rev-parse", "main") == a.head().id.hex)

        // What carol writes after that is refused, whether or not her replica merged the
        // removal, and alice's replica stays where it was.
        try await c.save(Task2(id: "c2", title: "carol, after her removal"))
        try await cSync.sync()  // carol's replica takes the removal and pushes on top of it
        let afterRemoval = try await a.head()
        await expectSharingRefusal(aSync, saying: "not a participant")
        #expect(try await a.head() == afterRemoval)
        #expect(try await a.record("c2") == nil)
        for path in [a.path, c.path, lab.remotePath] {
            #expect(try await git("--git-dir", path, "fsck", "--strict").status == 0)
        }
    }
}
