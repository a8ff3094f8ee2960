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
        let lab = try SyncLab()
        let one = try RecordStore<Task2>.create(at: lab.folder.child("one"))
        let two = try RecordStore<Task2>.create(at: lab.folder.child("two"))
        let oneSync = Exchange(records: one, remote: try Remote(lab.remotePath))
        let twoSync = Exchange(records: two, remote: try Remote(lab.remotePath))
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
        let fsck = try git("--git-dir", lab.remotePath, "fsck", "--strict")
        #expect(fsck.status == 0)
    }

    /// The exchange once exposed a `Store` over the collection, whose `save` replaced every
    /// record with one `value.json`. Its store is now the collection itself, and no public way
    /// opens a value store over a record collection.
    @Test func theExchangeOffersNoWayToWriteAValueIntoARecordCollection() async throws {
        let lab = try SyncLab()
        let records = try RecordStore<Task2>.create(at: lab.folder.child("records"))
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
            guard case StoreError.notAStore(_, let reason) = error else { return false }
            return reason.contains("record collection")
        }
        #expect(try await records.count() == 2)
        let tree = try git("--git-dir", records.path, "ls-tree", "--name-only", "main")
        #expect(tree.stdout == "records\n")
    }

    @Test func aNewReplicaTakesTheRemotesHistoryAsItIs() async throws {
        let lab = try SyncLab()
        let one = try RecordStore<Task2>.create(at: lab.folder.child("one"))
        try await one.save(Task2(id: "a", title: "first"))
        try await Exchange(store: one, remote: try Remote(lab.remotePath)).sync()
        let fresh = try RecordStore<Task2>.create(at: lab.folder.child("fresh"))
        let report = try await Exchange(store: fresh, remote: try Remote(lab.remotePath)).sync()
        #expect(report.merge == .fastForwarded(to: try one.head().id))
        #expect(try fresh.head() == one.head())
        #expect(try fresh.history().allSatisfy { !$0.isMerge })
        // A replica that already holds something merges instead.
        let busy = try RecordStore<Task2>.create(at: lab.folder.child("busy"))
        try await busy.save(Task2(id: "b", title: "mine"))
        let merged = try await Exchange(store: busy, remote: try Remote(lab.remotePath)).sync()
        guard case .merged = merged.merge else {
            Issue.record("expected a merge, got \(String(describing: merged.merge))")
            return
        }
        #expect(try await busy.count() == 2)
    }
}
