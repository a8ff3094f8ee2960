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

    /// A replica that holds the commit a checkpoint stands in for carries its edits over
    /// against it even when the remote keeps no archive: the edits made after the horizon on
    /// the new lineage (a deletion among them) stay, rather than being undone by a salvage.
    @Test func theCheckpointsOwnCommitIsABaseWithoutAnArchive() async throws {
        let lab = try await SyncLab()
        let (a, aSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("a")
        let (b, bSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("b")
        try await a.save([Task2(id: "r1", title: "one"), Task2(id: "r2", title: "two"), Task2(id: "r3", title: "three")])
        try await aSync.sync()
        try await bSync.sync()
        let horizon = try await a.head().id
        try await a.delete("r1")
        try await a.save(Task2(id: "r2", title: "two, edited by a"))
        let compaction = try #require(try a.engine.checkpoint(.main, at: horizon))
        try await aSync.sync()
        let archive = "refs/forkstore/archive/\(compaction.checkpoint.hex)"
        #expect(try await git("--git-dir", lab.remotePath, "update-ref", "-d", archive).status == 0)

        try await b.save(Task2(id: "r3", title: "three, edited by b"))
        try await bSync.sync()
        try await aSync.sync()
        for (name, store) in [("a", a), ("b", b)] {
            let titles = Dictionary(uniqueKeysWithValues: try await store.records().map { ($0.id, $0.title) })
            #expect(titles == ["r2": "two, edited by a", "r3": "three, edited by b"], "replica \(name)")
        }
        #expect(try await Checkpoints.root(in: lab.remotePath) == compaction.checkpoint.hex)
    }

    /// With `archive: .drop`, a replica drops an archive only once the remote holds it (the
    /// exchange pushes it before the new lineage): until then a replica still on the old
    /// history could not fetch it. The losing head of an adoption stays under a carried ref
    /// until then too.
    @Test func anArchiveIsDroppedOnlyOnceTheRemoteHasIt() async throws {
        let lab = try await SyncLab()
        var options = StoreOptions()
        options.history = .keepCommits(2, archive: .drop)
        let (a, aSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("a", options: options)
        let (b, bSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("b", options: options)
        for index in 0..<6 { try await a.save(Task2(id: "t\(index)", title: "old history")) }
        try await aSync.sync()
        try await bSync.sync()
        let compaction = try #require(try await a.compactHistory(keeping: nil))
        let archive = "refs/forkstore/archive/\(compaction.checkpoint.hex)"
        let aPath = lab.folder.child("a"), bPath = lab.folder.child("b")
        #expect(try await git("--git-dir", aPath, "rev-parse", "--verify", archive).status == 0, "dropped before it was pushed")
        try await a.pack()
        #expect(try await git("--git-dir", aPath, "rev-parse", "--verify", archive).status == 0, "dropped before it was pushed")

        try await aSync.sync()
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", archive).status == 0)
        try await a.pack()
        #expect(try await git("--git-dir", aPath, "rev-parse", "--verify", archive).status != 0)

        // b, still on the old history with an edit, carries it over and keeps its old head.
        try await b.save(Task2(id: "b", title: "on the old history"))
        let bOld = try await b.head().id.hex
        try await bSync.sync()
        #expect(Set(try await b.records().map(\.id)) == Set((0..<6).map { "t\($0)" } + ["b"]))
        let carried = "refs/forkstore/archive/carried/\(bOld)"
        #expect(try await git("--git-dir", bPath, "rev-parse", "--verify", carried).stdout.trimmed == bOld)
        try await b.pack()  // the sync pushed the carry-over: cloud is on main's lineage
        #expect(try await git("--git-dir", bPath, "rev-parse", "--verify", carried).status != 0)
        try await aSync.sync()
        #expect(Set(try await a.records().map(\.id)) == Set((0..<6).map { "t\($0)" } + ["b"]))
    }

    /// A remote put back to an older lineage (a host restored from a backup, or a hostile
    /// one) with no archives: a replica on the newer lineage that never held the old history
    /// carries the older head over against the older checkpoint, which the newer one names as
    /// the lineage it was cut from, so a deletion made between the two does not come back.
    @Test func anOlderLineageIsCarriedAgainstItsCheckpointNotSalvaged() async throws {
        let lab = try await SyncLab()
        let (a, aSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("a")
        try await a.save([Task2(id: "r1", title: "one"), Task2(id: "r2", title: "two"), Task2(id: "r3", title: "three")])
        try await a.save(Task2(id: "r3", title: "three, again"))
        let first = try #require(try a.engine.checkpoint(.main, at: try await a.head().id))
        try await aSync.sync()
        let older = try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout.trimmed
        try await a.delete("r1")
        try await a.save(Task2(id: "r3", title: "three, once more"))
        let second = try #require(try a.engine.checkpoint(.main, at: try await a.head().id))
        #expect(try await a.checkpoint()?.trailer("Checkpoint-After") == first.checkpoint.hex)
        try await aSync.sync()

        let (r, rSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("r")
        try await rSync.sync()
        #expect(try await Checkpoints.root(in: lab.folder.child("r")) == second.checkpoint.hex)
        // The remote goes back to the older lineage, its archives gone.
        #expect(try await git("--git-dir", lab.remotePath, "update-ref", "refs/heads/main", older).status == 0)
        for name in try await git("--git-dir", lab.remotePath, "for-each-ref", "--format=%(refname)", "refs/forkstore").stdout.split(separator: "\n") {
            #expect(try await git("--git-dir", lab.remotePath, "update-ref", "-d", String(name)).status == 0)
        }
        try await r.save(Task2(id: "r2", title: "two, edited by r"))
        try await rSync.sync()
        let titles = Dictionary(uniqueKeysWithValues: try await r.records().map { ($0.id, $0.title) })
        #expect(titles == ["r2": "two, edited by r", "r3": "three, once more"])
        #expect(try await Checkpoints.root(in: lab.remotePath) == second.checkpoint.hex)
    }

    /// A checkpoint cut later on a history wins over an earlier one even when the earlier
    /// one's commit carried a clock years ahead: commits after a far-future one move on only
    /// within the maximum skew, so the later checkpoint has the lower `Clock`, but its
    /// `Lamport` is higher, and that is compared first.
    @Test func aLaterCheckpointWinsOverAnEarlierOneWithAFarFutureClock() async throws {
        let lab = try await SyncLab()
        let (a, aSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("a")
        let (b, bSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("b")
        try await a.save(Task2(id: "base", title: "base"))
        var future = StoreOptions()
        future.wallClock = { Date().addingTimeInterval(10 * 365 * 86_400) }
        try await RecordStore<Task2>.open(at: a.path, options: future).save(Task2(id: "future", title: "a clock ten years ahead"))
        let farFuture = try await a.head().id
        try await a.save(Task2(id: "after", title: "after"))
        let first = try #require(try a.engine.checkpoint(.main, at: farFuture))
        try await aSync.sync()
        try await bSync.sync()
        #expect(try await Checkpoints.root(in: lab.folder.child("b")) == first.checkpoint.hex)

        try await a.save(Task2(id: "later", title: "later"))
        let later = try await a.head().id
        try await a.save(Task2(id: "last", title: "last"))
        let second = try #require(try a.engine.checkpoint(.main, at: later))
        let firstCommit = try #require(try await a.history(limit: nil).first { $0.id == second.checkpoint })
        #expect(try await b.checkpoint()?.clock ?? HybridTime(milliseconds: 0) > firstCommit.clock, "the set-up needs a lower clock")
        try await b.save(Task2(id: "b", title: "b on the first lineage"))
        try await aSync.sync()
        try await bSync.sync()
        try await aSync.sync()

        let expected: Set = ["base", "future", "after", "later", "last", "b"]
        for (name, store) in [("a", a), ("b", b)] {
            #expect(Set(try await store.records().map(\.id)) == expected, "replica \(name)")
            #expect(try await Checkpoints.root(in: lab.folder.child(name)) == second.checkpoint.hex, "replica \(name)")
        }
        #expect(try await a.head().id == (try await b.head().id))
        #expect(try await Checkpoints.root(in: lab.remotePath) == second.checkpoint.hex)
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
