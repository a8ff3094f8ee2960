import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// The adoption rule (FORMAT.md §16) through real syncs: concurrent checkpoints give one
/// lineage on every replica whatever the order of syncs; a replica that never compacts follows
/// one that does; a removed participant gets nothing back through a carry-over.
@Suite("Checkpoint adoption")
struct CheckpointAdoptionTests {
    /// The orders in which three replicas sync after two of them checkpointed at once.
    static let orders: [[Int]] = [[0, 1, 2, 0, 1, 2], [1, 0, 2, 1, 0, 2], [2, 1, 0, 2, 1, 0]]

    /// Two owners checkpoint at once, each after an edit of their own, while a third replica
    /// edits on the old history. Whatever the order of syncs, every replica ends on the
    /// lineage of the newer checkpoint, with every edit.
    @Test(arguments: orders)
    func twoOwnersCheckpointingAtOnceGiveOneLineageEverywhere(order: [Int]) async throws {
        let lab = try await SyncLab()
        var stores: [RecordStore<Task2>] = [], exchanges: [Exchange] = []
        for name in ["r0", "r1", "r2"] {
            let (store, exchange): (RecordStore<Task2>, Exchange) = try lab.recordReplica(name)
            stores.append(store)
            exchanges.append(exchange)
        }
        try await stores[0].save([Task2(id: "base", title: "base")])
        for exchange in exchanges { try await exchange.sync() }
        try await stores[0].save(Task2(id: "x0", title: "r0 before its checkpoint"))
        try await stores[1].save(Task2(id: "x1", title: "r1 before its checkpoint"))
        try await stores[2].save(Task2(id: "x2", title: "r2 on the old history"))
        // Both owners compact at their own last edit, replaying one commit after it: two
        // checkpoints of two commits.
        var checkpoints: [CommitID] = []
        for (index, store) in stores.prefix(2).enumerated() {
            let horizon = try await store.head().id
            try await store.save(Task2(id: "y\(index)", title: "replayed"))
            let compaction = try #require(try store.engine.checkpoint(.main, at: horizon))
            checkpoints.append(compaction.checkpoint)
            try await store.save(Task2(id: "after-\(checkpoints.count - 1)", title: "after the checkpoint"))
        }
        for index in order { try await exchanges[index].sync() }

        // The newer checkpoint: r1 wrote its horizon's edit after r0 wrote its own.
        let winner = checkpoints[1].hex
        let expected: Set = ["base", "x0", "x1", "x2", "y0", "y1", "after-0", "after-1"]
        let heads = try await stores.asyncMap { try await $0.head().id }
        #expect(Set(heads).count == 1, "replicas differ: \(heads)")
        for (index, store) in stores.enumerated() {
            #expect(Set(try await store.records().map(\.id)) == expected, "replica \(index)")
            #expect(try await Checkpoints.root(in: lab.folder.child("r\(index)")) == winner, "replica \(index)")
        }
        #expect(try await Checkpoints.root(in: lab.remotePath) == winner)
        #expect(try await Checkpoints.recordIDs(in: lab.remotePath) == expected)
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)
    }

    /// A replica that never compacts keeps syncing with one that compacts every round: it
    /// adopts each new checkpoint, and both keep every record.
    @Test func aReplicaThatNeverCompactsKeepsSyncing() async throws {
        let lab = try await SyncLab()
        let (compacting, compactingSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("compacting")
        let (keeping, keepingSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("keeping")
        var expected = Set<String>()
        for round in 0..<3 {
            try await compacting.save(Task2(id: "c\(round)", title: "compacting, round \(round)"))
            try await keeping.save(Task2(id: "k\(round)", title: "keeping, round \(round)"))
            expected.formUnion(["c\(round)", "k\(round)"])
            try await compactingSync.sync()
            let head = try await compacting.head()
            if let horizon = head.parents.first { _ = try compacting.engine.checkpoint(.main, at: horizon) }
            try await compactingSync.sync()
            try await keepingSync.sync()
            try await compactingSync.sync()
            #expect(Set(try await compacting.records().map(\.id)) == expected, "round \(round)")
            #expect(Set(try await keeping.records().map(\.id)) == expected, "round \(round)")
            #expect(try await keeping.head().id == (try await compacting.head().id), "round \(round)")
        }
        #expect(try await Checkpoints.recordIDs(in: lab.remotePath) == expected)
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)
    }

    /// A writer edits offline while the owner removes them and compacts. Their replica adopts
    /// the owner's lineage but refuses to carry their commits over (they may no longer write
    /// there), so nothing of theirs reaches the remote or the owner.
    @Test func aRemovedParticipantsOldCommitsDoNotReturnThroughACarryOver() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (a, aSync) = try lab.signedReplica("alice", key: alice)
        try await a.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await a.save(Task2(id: "x", title: "shared"))
        try await aSync.sync()
        let (c, cSync) = try lab.signedReplica("carol", key: carol)
        try await cSync.sync()

        try await c.save(Task2(id: "secret", title: "carol, offline"))
        try await a.setParticipants([alice.participant(.owner, "alice")])
        try await a.save(Task2(id: "y", title: "alice, after removing carol"))
        let horizon = try #require(try await a.head().parents.first)
        _ = try #require(try a.engine.checkpoint(.main, at: horizon))
        try await aSync.sync()
        let remoteHead = try await lab.remoteGit("rev-parse", "main")

        let rule = await expectSharingRefusal(cSync, saying: "not a participant")
        #expect(rule?.contains("not carried") == true, "\(rule ?? "")")
        #expect(try await lab.remoteGit("rev-parse", "main") == remoteHead)
        try await aSync.sync()
        #expect(try await a.record("secret") == nil)
        #expect(try await Checkpoints.recordIDs(in: lab.remotePath) == ["x", "y"])
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
