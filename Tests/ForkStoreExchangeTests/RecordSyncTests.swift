import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

struct Task2: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
}

@Suite("Exchange with record collections")
struct RecordSyncTests {
    @Test func recordCollectionsSyncRecordByRecord() async throws {
        let lab = try await SyncLab()
        let (one, oneSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("one")
        let (two, twoSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("two")
        try await one.save([Task2(id: "a", title: "from one"), Task2(id: "shared", title: "base")])
        try await oneSync.sync()
        try await twoSync.sync()
        try await two.save([Task2(id: "b", title: "from two"), Task2(id: "shared", title: "edited by two")])
        try await one.delete("a")
        try await twoSync.sync()
        try await oneSync.sync()
        try await twoSync.sync()
        for store in [one, two] {
            #expect(try await store.count() == 2)
            #expect(try await store.record("shared")?.title == "edited by two")
            #expect(try await store.record("b") != nil)
            #expect(try await store.record("a") == nil)
        }
        let fsck = try await git("--git-dir", lab.remotePath, "fsck", "--strict")
        #expect(fsck.status == 0)
    }

    /// A bare repository by path is written directly: a one-record sync adds one pack to the
    /// remote holding only what the commit changed (the commit, the trees on the record's path
    /// and its blob), not a walk of the whole collection, and git finds the remote sound.
    @Test func aOneRecordPushToAPathRemoteShipsOnlyWhatChanged() async throws {
        let lab = try await SyncLab()
        let (one, oneSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("one")
        let (two, twoSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("two")
        try await one.save((0..<500).map { Task2(id: "task-\($0)", title: "title \($0)") })
        try await oneSync.sync()
        try await twoSync.sync()

        let packsBefore = Set(try packIndexes(in: lab.remotePath))
        try await one.save(Task2(id: "task-7", title: "edited"))
        let report = try await oneSync.sync()
        #expect(report.pushedCommits == 1)
        let added = try packIndexes(in: lab.remotePath).filter { !packsBefore.contains($0) }
        try #require(added.count == 1)
        let listing = try await git("verify-pack", "-v", added[0])
        let kinds = ["commit", "tree", "blob"]
        let objects = listing.stdout.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 1 && kinds.contains(String(fields[1]))
        }.count
        // commit, root tree, records tree, two shard levels, one blob
        #expect(objects > 0 && objects <= 6, "the pack holds \(objects) objects")
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)

        try await twoSync.sync()
        #expect(try await two.record("task-7")?.title == "edited")
        #expect(try await two.count() == 500)
    }

    /// Over the network the pack is ours too: a one-record sync is one push, which lists the
    /// remote's heads itself (no fetch first), and the pack the server keeps holds only what
    /// the commit changed. The first push of the collection streams one pack of everything.
    @Test(arguments: ["git", "http"])
    func aOneRecordPushOverTheNetworkIsOneRequestShippingOnlyWhatChanged(transport: String) async throws {
        let lab = try await SyncLab()
        // The server keeps each pack as it arrives, so the test can read what was sent.
        for (key, value) in [("receive.unpackLimit", "1"), ("http.receivepack", "true")] {
            #expect(try await git("--git-dir", lab.remotePath, "config", key, value).status == 0)
        }
        let daemon = transport == "git" ? try await GitDaemon(basePath: lab.folder.path) : nil
        let http = transport == "http" ? try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("http")) : nil
        let url = try #require(daemon?.url("remote.git") ?? http?.url("remote.git"))
        let one = try await RecordStore<Task2>.create(at: lab.folder.child("one"))
        let oneSync = Exchange(records: one, remote: try Remote(url))
        try await one.save((0..<500).map { Task2(id: "task-\($0)", title: "title \($0)") })
        #expect(try await oneSync.sync().pushedCommits == 2)
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)

        let packsBefore = Set(try packIndexes(in: lab.remotePath))
        let fetchesBefore = daemon?.requests(for: "upload-pack"), pushesBefore = daemon?.requests(for: "receive-pack")
        try await one.save(Task2(id: "task-7", title: "edited"))
        #expect(try await oneSync.sync().pushedCommits == 1)
        if let daemon, let fetchesBefore, let pushesBefore {
            #expect(daemon.requests(for: "upload-pack") == fetchesBefore, "the sync fetched before pushing")
            #expect(daemon.requests(for: "receive-pack") == pushesBefore + 1)
        }
        let added = try packIndexes(in: lab.remotePath).filter { !packsBefore.contains($0) }
        try #require(added.count == 1)
        let listing = try await git("verify-pack", "-v", added[0])
        let objects = listing.stdout.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 1 && ["commit", "tree", "blob"].contains(String(fields[1]))
        }.count
        #expect(objects > 0 && objects <= 6, "the pack holds \(objects) objects")
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout.hasPrefix(try one.head().id.hex))
    }

    private func packIndexes(in repository: String) throws -> [String] {
        let folder = repository + "/objects/pack"
        return try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".idx") }.map { folder + "/" + $0 }
    }

    /// The exchange once exposed a `Store` over the collection, whose `save` replaced every
    /// record with one `value.json`. Its store is now the collection itself, and no public way
    /// opens a value store over a record collection.
    @Test func theExchangeOffersNoWayToWriteAValueIntoARecordCollection() async throws {
        let lab = try await SyncLab()
        let records = try await RecordStore<Task2>.create(at: lab.folder.child("records"))
        try await records.save([Task2(id: "a", title: "one"), Task2(id: "b", title: "two")])
        for exchange in [Exchange(records: records, remote: try Remote(lab.remotePath)),
                         Exchange(store: records, remote: try Remote(lab.remotePath))] {
            #expect(exchange.store as? RecordStore<Task2> === records)
            #expect(!(exchange.store is Store<Task2>))
            try await exchange.sync()
        }
        #expect {
            try Store<Task2>.open(at: records.path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .notAStore, let reason = error.reason else { return false }
            return reason.contains("record collection")
        }
        #expect(try await records.count() == 2)
        let tree = try await git("--git-dir", records.path, "ls-tree", "--name-only", "main")
        #expect(tree.stdout == "records\n")
    }

    @Test func aNewReplicaTakesTheRemotesHistoryAsItIs() async throws {
        let lab = try await SyncLab()
        let one = try await RecordStore<Task2>.create(at: lab.folder.child("one"))
        try await one.save(Task2(id: "a", title: "first"))
        try await Exchange(store: one, remote: try Remote(lab.remotePath)).sync()
        let fresh = try await RecordStore<Task2>.create(at: lab.folder.child("fresh"))
        let report = try await Exchange(store: fresh, remote: try Remote(lab.remotePath)).sync()
        #expect(report.merge == .fastForwarded(to: try await one.head().id))
        #expect(try await fresh.head() == one.head())
        #expect(try await fresh.history().allSatisfy { !$0.isMerge })
        // A replica that already holds something merges instead.
        let busy = try await RecordStore<Task2>.create(at: lab.folder.child("busy"))
        try await busy.save(Task2(id: "b", title: "mine"))
        let merged = try await Exchange(store: busy, remote: try Remote(lab.remotePath)).sync()
        guard case .merged = merged.merge else {
            Issue.record("expected a merge, got \(String(describing: merged.merge))")
            return
        }
        #expect(try await busy.count() == 2)
    }
}
