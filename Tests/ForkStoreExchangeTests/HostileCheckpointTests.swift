import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A remote that hands out a fake checkpoint cannot replace a replica's history: the checkpoint
/// must hold the tree and stamps of the commit it names, be written as the format says, and,
/// in a shared store, be signed by an owner. What fails is refused and quarantined; `main`
/// stays where it was.
@Suite("Hostile checkpoints")
struct HostileCheckpointTests {
    /// A lab whose replica `one` holds three records, one of them edited since, synced.
    private func syncedReplica(_ lab: SyncLab, key: TestKey? = nil) async throws -> (RecordStore<Task2>, Exchange) {
        let (one, oneSync) = try lab.signedReplica("one", key: key)
        try await one.save([Task2(id: "a", title: "a"), Task2(id: "b", title: "b"), Task2(id: "c", title: "c")])
        try await one.save(Task2(id: "a", title: "a, edited"))
        try await oneSync.sync()
        return (one, oneSync)
    }

    /// Points the remote's `main` at `commit`, as a hostile server can.
    private func serve(_ commit: String, in lab: SyncLab) async throws {
        try await lab.remoteGit("update-ref", "refs/heads/main", commit)
    }

    @Test func aCheckpointWhoseTreeIsNotItsCommitsIsRefused() async throws {
        let lab = try await SyncLab()
        let (one, oneSync) = try await syncedReplica(lab)
        // The tree before the edit: as many records, so only the tree check can tell.
        let older = try await lab.remoteGit("rev-parse", "main~1^{tree}")
        try await serve(try await Checkpoints.write(in: lab.remotePath, tree: older), in: lab)
        let before = try await one.head()
        await expectSharingRefusal(oneSync, saying: "whose tree is not that commit's tree")
        #expect(try await one.head() == before)
        #expect(try await one.count() == 3)
    }

    /// A checkpoint naming a lineage it was not cut from would make a carry-over take that
    /// lineage's data as shared history: refused where the replica holds the commit.
    @Test func aCheckpointNamingAnotherLineageIsRefused() async throws {
        let lab = try await SyncLab()
        let (one, oneSync) = try await syncedReplica(lab)
        let elsewhere = try await lab.remoteGit("rev-parse", "main~1")
        try await serve(try await Checkpoints.write(in: lab.remotePath, after: elsewhere), in: lab)
        let before = try await one.head()
        await expectSharingRefusal(oneSync, saying: "Checkpoint-After")
        #expect(try await one.head() == before)
    }

    @Test func aMalformedCheckpointOfIsRefused() async throws {
        let lab = try await SyncLab()
        let (one, oneSync) = try await syncedReplica(lab)
        try await serve(try await Checkpoints.write(in: lab.remotePath, checkpointOf: "not-a-commit-id"), in: lab)
        let before = try await one.head()
        await expectSharingRefusal(oneSync, saying: "Checkpoint-Of")
        #expect(try await one.head() == before)
    }

    @Test func anUnsignedCheckpointOfASharedStoreIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder)
        let (one, oneSync) = try lab.signedReplica("one", key: alice)
        try await one.setParticipants([alice.participant(.owner, "alice")])
        try await one.save(Task2(id: "a", title: "a"))
        try await oneSync.sync()
        try await serve(try await Checkpoints.write(in: lab.remotePath), in: lab)
        let before = try await one.head()
        await expectSharingRefusal(oneSync, saying: "only a checkpoint an owner signed")
        #expect(try await one.head() == before)
    }

    @Test func aWritersCheckpointOfASharedStoreIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (one, oneSync) = try lab.signedReplica("one", key: alice)
        try await one.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await one.save(Task2(id: "a", title: "a"))
        try await oneSync.sync()
        try await serve(try await Checkpoints.write(in: lab.remotePath, key: carol), in: lab)
        let before = try await one.head()
        await expectSharingRefusal(oneSync, saying: "who is not an owner")
        #expect(try await one.head() == before)

        // The owner's own checkpoint of the same commit is adopted.
        try await serve(try await Checkpoints.write(in: lab.remotePath, of: before.id.hex, key: alice), in: lab)
        try await oneSync.sync()
        #expect(try await one.record("a")?.title == "a")
        #expect(try await Checkpoints.root(in: lab.folder.child("one")) == (try await lab.remoteGit("rev-parse", "main")))
    }
}
