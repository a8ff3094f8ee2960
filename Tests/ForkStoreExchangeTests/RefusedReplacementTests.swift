import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A remote that refuses non-fast-forward updates (`receive.denyNonFastForwards`, as protected
/// branches do) cannot take a compacted lineage in place of its `main` (FORMAT.md §16.6): the
/// replica carries its `main` back onto the remote's history and syncs by fast-forwards,
/// losing nothing, and does not try the replacement again.
@Suite("A remote that refuses history replacement")
struct RefusedReplacementTests {
    @Test(arguments: ["path", "git"])
    func aCompactedReplicaCarriesItsEditsOntoTheRemotesHistory(transport: String) async throws {
        let lab = try await SyncLab()
        let denied = try await git("--git-dir", lab.remotePath, "config", "receive.denyNonFastForwards", "true")
        #expect(denied.status == 0)
        let daemon = transport == "git" ? try await GitDaemon(basePath: lab.folder.path) : nil
        let url = daemon?.url("remote.git") ?? lab.remotePath
        let one = try await RecordStore<Task2>.create(at: lab.folder.child("one"))
        let two = try await RecordStore<Task2>.create(at: lab.folder.child("two"))
        let oneSync = Exchange(records: one, remote: try Remote(url)), twoSync = Exchange(records: two, remote: try Remote(url))
        try await one.save(["a", "b", "c", "d"].map { Task2(id: $0, title: "base \($0)") })
        try await oneSync.sync()
        try await twoSync.sync()
        let oldRoot = try await Checkpoints.root(in: lab.remotePath)

        // Before the compaction: an edit, an addition and a deletion; after it, an addition.
        try await one.save(Task2(id: "a", title: "edited by one"))
        try await one.save(Task2(id: "o1", title: "added by one"))
        try await one.delete("c")
        let compaction = try #require(try await one.compactHistory(keeping: .keepCommits(1)))
        try await one.save(Task2(id: "o2", title: "added after the checkpoint"))
        try await two.save(Task2(id: "b", title: "edited by two"))

        let first = try await oneSync.sync()
        #expect(first.carriedOntoRemoteHistory)
        #expect(first.pushAttempts == 2, "the refused replacement, then the fast-forward")
        #expect(oneSync.status.remoteRefusesHistoryReplacement)
        #expect(try await Checkpoints.root(in: lab.remotePath) == oldRoot, "the remote keeps its history")
        #expect(try await Checkpoints.root(in: lab.folder.child("one")) == oldRoot)
        let remoteMain = try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout.trimmed
        #expect(remoteMain == (try await one.head().id.hex))
        #expect(try await Checkpoints.recordIDs(in: lab.remotePath) == ["a", "b", "d", "o1", "o2"])

        try await twoSync.sync()
        try await oneSync.sync()
        let expected: [String: String] = [
            "a": "edited by one", "b": "edited by two", "d": "base d", "o1": "added by one", "o2": "added after the checkpoint",
        ]
        for store in [one, two] {
            let records = try await store.records()
            #expect(Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.title) }) == expected)
        }
        #expect(compaction.checkpoint != (try await one.head().id))
        for folder in [lab.remotePath, lab.folder.child("one"), lab.folder.child("two")] {
            let fsck = try await git("--git-dir", folder, "fsck", "--strict")
            #expect(fsck.status == 0, "\(fsck.stderr)")
        }
    }

    /// Once a remote refused, a later compaction is carried onto its history before any push:
    /// no archive ref is pushed, no forced update tried, and a new exchange of the same store
    /// knows it from the start.
    @Test func aRefusalIsRememberedAndNotTriedAgain() async throws {
        let lab = try await SyncLab()
        #expect(try await git("--git-dir", lab.remotePath, "config", "receive.denyNonFastForwards", "true").status == 0)
        let one = try await RecordStore<Task2>.create(at: lab.folder.child("one"))
        let (two, twoSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("two")
        try await one.save(["a", "b", "c"].map { Task2(id: $0, title: "base \($0)") })
        try await Exchange(records: one, remote: try Remote(lab.remotePath)).sync()
        try await one.save(Task2(id: "a", title: "first edit"))
        _ = try #require(try await one.compactHistory(keeping: .keepCommits(1)))
        let refused = try await Exchange(records: one, remote: try Remote(lab.remotePath)).sync()
        #expect(refused.carriedOntoRemoteHistory && refused.pushAttempts == 2)
        let archives = try await git("--git-dir", lab.remotePath, "for-each-ref", "refs/forkstore/archive").stdout

        let oneSync = Exchange(records: one, remote: try Remote(lab.remotePath))
        try await one.save(Task2(id: "b", title: "second edit"))
        try await one.delete("c")
        let again = try #require(try await one.compactHistory(keeping: .keepCommits(1)))
        try await one.save(Task2(id: "n", title: "after the second compaction"))
        let second = try await oneSync.sync()
        #expect(second.carriedOntoRemoteHistory)
        #expect(second.pushAttempts == 1, "no replacement tried")
        #expect(oneSync.status.remoteRefusesHistoryReplacement)
        let after = try await git("--git-dir", lab.remotePath, "for-each-ref", "refs/forkstore/archive").stdout
        #expect(after == archives, "no archive of \(again.checkpoint.short) pushed")
        #expect(try await oneSync.sync().pushedCommits == 0, "nothing left to push")
        // pack() under a policy no longer compacts: the next sync would only carry main back.
        var policy = StoreOptions()
        policy.history = .keepCommits(1)
        let packing = try await RecordStore<Task2>.open(at: lab.folder.child("one"), options: policy)
        for index in 0..<3 { try await packing.save(Task2(id: "p\(index)", title: "before a pack")) }
        try await packing.pack()
        #expect(try await packing.checkpoint() == nil)
        try await oneSync.sync()

        try await twoSync.sync()
        var expected: [String: String] = ["a": "first edit", "b": "second edit", "n": "after the second compaction"]
        for index in 0..<3 { expected["p\(index)"] = "before a pack" }
        let records = try await two.records()
        #expect(Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.title) }) == expected)
        for folder in [lab.remotePath, lab.folder.child("one"), lab.folder.child("two")] {
            let fsck = try await git("--git-dir", folder, "fsck", "--strict")
            #expect(fsck.status == 0, "\(fsck.stderr)")
        }
    }
}
