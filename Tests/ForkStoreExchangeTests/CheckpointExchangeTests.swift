import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Checkpoints through the exchange (FORMAT.md §16): adoption of the winning lineage, carry-over
/// of commits made on the losing one, the archive beside `main`, and the forced push under a
/// lease, against real remotes.
@Suite("Checkpoints through the exchange")
struct CheckpointExchangeTests {
    /// One replica is offline while the other compacts and pushes the checkpoint lineage; both
    /// edited meanwhile. They converge, every record of both sides is kept, and git reads the
    /// result as ordinary history rooted in the checkpoint, with the carried commit on top.
    @Test(arguments: ["path", "git"])
    func aReplicaOfflineAcrossACheckpointCarriesItsEditsOver(transport: String) async throws {
        let lab = try await SyncLab()
        let daemon = transport == "git" ? try await GitDaemon(basePath: lab.folder.path) : nil
        let url = daemon?.url("remote.git") ?? lab.remotePath
        let one = try await RecordStore<Task2>.create(at: lab.folder.child("one"))
        let two = try await RecordStore<Task2>.create(at: lab.folder.child("two"))
        let oneSync = Exchange(records: one, remote: try Remote(url)), twoSync = Exchange(records: two, remote: try Remote(url))
        try await one.save(["a", "b", "c", "d", "e"].map { Task2(id: $0, title: "base \($0)") })
        try await oneSync.sync()
        try await twoSync.sync()

        // Offline on the old history.
        try await two.save(Task2(id: "b", title: "edited by two"))
        try await two.save(Task2(id: "t1", title: "added by two"))
        try await two.delete("c")

        try await one.save(Task2(id: "a", title: "edited by one"))
        try await one.save(Task2(id: "o1", title: "added by one"))
        try await oneSync.sync()
        let checkpoint = try await Checkpoints.compact(storeAt: lab.folder.child("one"))
        try await one.save(Task2(id: "o2", title: "added after the checkpoint"))
        try await oneSync.sync()
        #expect(try await Checkpoints.root(in: lab.remotePath) == checkpoint)
        let archived = try await git("--git-dir", lab.remotePath, "rev-parse", "refs/forkstore/archive/\(checkpoint)")
        #expect(archived.status == 0, "the archive travels with the lineage")

        try await twoSync.sync()
        try await oneSync.sync()
        let expected: [String: String] = [
            "a": "edited by one", "b": "edited by two", "d": "base d", "e": "base e", "o1": "added by one",
            "o2": "added after the checkpoint", "t1": "added by two",
        ]
        for store in [one, two] {
            let records = try await store.records()
            #expect(Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.title) }) == expected)
        }
        #expect(try await Checkpoints.recordIDs(in: lab.remotePath) == Set(expected.keys))
        for folder in [lab.remotePath, lab.folder.child("one"), lab.folder.child("two")] {
            #expect(try await Checkpoints.root(in: folder) == checkpoint)
            let fsck = try await git("--git-dir", folder, "fsck", "--strict")
            #expect(fsck.status == 0, "\(fsck.stderr)")
        }
        // The carried commit: one parent, on the checkpoint lineage, naming what it carried.
        let carried = try await git("--git-dir", lab.remotePath, "log", "--format=%H %P%n%B", "--grep=Carry over", "main").stdout
        #expect(carried.contains("Carry over onto checkpoint \(checkpoint.prefix(10))"))
        #expect(carried.contains("Carried-From: "))
        let parentLine = carried.split(separator: "\n").first.map { $0.split(separator: " ") } ?? []
        #expect(parentLine.count == 2, "one parent: \(parentLine)")
    }

    /// A replica with no edits of its own adopts the checkpoint lineage without writing
    /// anything: its `main` is the remote's.
    @Test func aReplicaWithNothingToCarryAdoptsTheLineageAsItIs() async throws {
        let lab = try await SyncLab()
        let (one, oneSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("one")
        let (two, twoSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("two")
        try await one.save(Task2(id: "a", title: "a"))
        try await oneSync.sync()
        try await twoSync.sync()
        try await Checkpoints.compact(storeAt: lab.folder.child("one"))
        try await one.save(Task2(id: "b", title: "b"))
        try await oneSync.sync()
        try await twoSync.sync()
        #expect(try await two.head().id == (try await one.head().id))
        #expect(try await two.count() == 2)
    }
}

/// Compaction on a schedule through the exchange (``ExchangeOptions/compactionInterval``).
@Suite("Compaction through the exchange")
struct ScheduledCompactionTests {
    /// A replica whose store keeps three commits compacts after a sync when the interval has
    /// passed, pushes the new lineage at once, and compacts no more until the interval passes
    /// again; the other replica adopts the lineage and both keep every record.
    @Test func aSyncCompactsAsThePolicyAsksAtMostOncePerInterval() async throws {
        let lab = try await SyncLab()
        var storeOptions = StoreOptions()
        storeOptions.history = .keepCommits(3)
        let one = try await RecordStore<Task2>.create(at: lab.folder.child("one"), options: storeOptions)
        let oneSync = Exchange(records: one, remote: try Remote(lab.remotePath), options: ExchangeOptions(compactionInterval: .seconds(3600)))
        let (two, twoSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("two")
        for index in 0..<6 { try await one.save(Task2(id: "r\(index)", title: "record \(index)")) }
        let first = try await oneSync.sync()
        let checkpoint = try #require(first.checkpoint)
        #expect(try await Checkpoints.root(in: lab.remotePath) == checkpoint.hex)
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "refs/forkstore/archive/\(checkpoint.hex)").status == 0)
        #expect(oneSync.status.lastCompaction != nil)

        for index in 6..<10 { try await one.save(Task2(id: "r\(index)", title: "record \(index)")) }
        try await two.save(Task2(id: "t", title: "from two"))
        #expect(try await oneSync.sync().checkpoint == nil, "compacted again within the interval")
        try await twoSync.sync()
        try await oneSync.sync()
        let expected = Set((0..<10).map { "r\($0)" } + ["t"])
        for store in [one, two] { #expect(Set(try await store.records().map(\.id)) == expected) }
        #expect(try await Checkpoints.root(in: lab.folder.child("two")) == checkpoint.hex)
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)
    }
}
