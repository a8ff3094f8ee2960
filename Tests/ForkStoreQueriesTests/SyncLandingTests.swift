import ForkStore
import ForkStoreExchange
import ForkStoreQueries
import ForkStoreTestSupport
import Foundation
import Testing

/// A sync that moves `main` brings the index in use to the new head before it returns, and
/// says how far it has come: what it landed is answered at once.
@Suite("Syncs keep the index in use fresh")
struct SyncLandingTests {
    /// Every ``IndexProgress`` a sync reports.
    func syncReportingIndexProgress(_ exchange: Exchange) async throws -> [IndexProgress] {
        let events = exchange.events()
        let watcher = Task {
            var seen: [IndexProgress] = []
            for await event in events {
                switch event {
                case .indexProgress(let progress): seen.append(progress)
                case .finished, .error: return seen
                default: continue
                }
            }
            return seen
        }
        try await exchange.sync()
        return await watcher.value
    }

    /// A bare remote in `folder` that a source store synced `count` random records to.
    func remote(holding count: Int, in folder: TemporaryFolder, random: inout SplitMix) async throws -> (url: String, source: RecordStore<IndexedItem>) {
        let remote = folder.child("remote.git")
        #expect(try await git("init", "--bare", "-q", "-b", "main", remote).status == 0)
        let source = try await RecordStore<IndexedItem>.create(at: folder.child("source"))
        try await source.save((0..<count).map { randomItem(&random, id: "i\($0)") })
        try await Exchange(records: source, remote: try Remote(remote)).sync()
        return (remote, source)
    }

    @Test func aFirstSyncLeavesTheIndexAtTheNewHeadAndSaysSo() async throws {
        let folder = TemporaryFolder()
        var random = SplitMix(state: 23)
        // More than 4,096: written without the secondary indexes, which are made again after.
        let count = 4500
        let (remote, source) = try await self.remote(holding: count, in: folder, random: &random)

        let replicaPath = folder.child("replica")
        let replica = try await RecordStore<IndexedItem>.create(at: replicaPath)
        #expect(try await replica.count(matching: RecordQuery()) == 0)  // the index in use, empty
        let exchange = Exchange(records: replica, remote: try Remote(remote))
        let progress = try await syncReportingIndexProgress(exchange)
        // Read before any query could bring it forward itself.
        #expect(try await indexedHead(inStoreAt: replicaPath) == (try await replica.head()).id.hex)
        #expect(progress.last.map { [$0.records, $0.totalRecords] } == [count, count])
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.records <= $1.records })
        try expectIndexAgreesWithAScan(replica)

        // A later sync that merges lands its change the same way.
        try await source.save(randomItem(&random, id: "from the source"))
        try await Exchange(records: source, remote: try Remote(remote)).sync()
        try await replica.save(randomItem(&random, id: "from the replica"))
        let merging = try await syncReportingIndexProgress(exchange)
        #expect(try await replica.head().parents.count == 2)
        #expect(try await indexedHead(inStoreAt: replicaPath) == (try await replica.head()).id.hex)
        // From the head the index was last at: the replica's own save, and the one it fetched.
        #expect(merging.last.map { [$0.records, $0.totalRecords] } == [2, 2])
        try expectIndexAgreesWithAScan(replica)
    }

    /// An app's first screen is a live query: woken by `main`'s move, it may bring the index
    /// forward before the sync's own landing does, and the sync still says how far that went.
    @Test func aLiveQueryThatIndexesFirstStillReportsToTheSync() async throws {
        let folder = TemporaryFolder()
        var random = SplitMix(state: 31)
        let count = 3000
        let remote = try await self.remote(holding: count, in: folder, random: &random).url

        let replica = try await RecordStore<IndexedItem>.create(at: folder.child("replica"))
        let firstScreen = RecordQuery<IndexedItem>().sorted(by: \.title).limit(20)
        var answers = replica.results(of: firstScreen).makeAsyncIterator()
        #expect(try await answers.next()?.isEmpty == true)
        let progress = try await syncReportingIndexProgress(Exchange(records: replica, remote: try Remote(remote)))
        #expect(progress.last.map { [$0.records, $0.totalRecords] } == [count, count])
        #expect(try await answers.next()?.count == 20)
        try expectIndexAgreesWithAScan(replica)
    }

    /// The index is a cache an app asks for by querying: a sync makes none of its own.
    @Test func aStoreWhoseIndexIsNotInUseGetsNoneFromASync() async throws {
        let folder = TemporaryFolder()
        var random = SplitMix(state: 29)
        let remote = try await self.remote(holding: 20, in: folder, random: &random).url

        let replicaPath = folder.child("replica")
        let replica = try await RecordStore<IndexedItem>.create(at: replicaPath)
        let progress = try await syncReportingIndexProgress(Exchange(records: replica, remote: try Remote(remote)))
        #expect(progress.isEmpty)
        #expect(try await indexedHead(inStoreAt: replicaPath) == nil)
        #expect(try await replica.records().count == 20)
    }
}
