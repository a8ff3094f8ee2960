import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Synchronization
import Testing

/// Replicas with wall clocks that disagree still agree on which write was the later one.
@Suite("Later writes across replicas")
struct ReplicaClockTests {
    struct Doc: Resource, Equatable {
        static let modelVersion = 1
        var title: String
    }

    /// A store whose wall clock runs `offset` seconds off the real one.
    private func replica(_ name: String, in lab: SyncLab, offset: TimeInterval) throws -> (Store<Doc>, Exchange) {
        var options = StoreOptions()
        options.wallClock = { Date().addingTimeInterval(offset) }
        let store = try Store<Doc>.create(at: lab.folder.child(name), options: options)
        return (store, Exchange(store: store, remote: try Remote(lab.remotePath)))
    }

    @Test func aReplicaAnHourBehindWritesLaterOnceItHasSeenTheOthersCommit() async throws {
        let lab = try SyncLab()
        let (ahead, aheadSync) = try replica("ahead", in: lab, offset: 0)
        let (behind, behindSync) = try replica("behind", in: lab, offset: -3600)
        try await ahead.save(Doc(title: "base"))
        try await aheadSync.sync()
        try await behindSync.sync()
        let first = try await ahead.save(Doc(title: "from the replica on time"))
        try await aheadSync.sync()
        try await behindSync.sync()
        // The replica an hour behind has now seen that commit: its next write comes after it.
        let second = try await behind.save(Doc(title: "from the replica an hour behind"))
        #expect(second.clock > first.clock)
        #expect(second.clock.milliseconds < Int64(Date().timeIntervalSince1970 * 1000))
        try await behindSync.sync()
        try await aheadSync.sync()
        #expect(try await ahead.value() == Doc(title: "from the replica an hour behind"))
        #expect(try await behind.value() == Doc(title: "from the replica an hour behind"))
        // And a write the replica on time makes later still wins over it.
        let third = try await ahead.save(Doc(title: "on time again"))
        #expect(third.clock > second.clock)
        try await aheadSync.sync()
        try await behindSync.sync()
        #expect(try await behind.value() == Doc(title: "on time again"))
    }

    @Test func fiveReplicasConvergeOnTheEditWithTheHighestClock() async throws {
        let lab = try SyncLab()
        let offsets: [TimeInterval] = [-1800, -300, 0, 120, 600]
        var replicas: [(store: Store<Doc>, exchange: Exchange)] = []
        for (index, offset) in offsets.enumerated() {
            replicas.append(try replica("r\(index)", in: lab, offset: offset))
        }
        try await replicas[0].store.save(Doc(title: "base"))
        for replica in replicas + replicas { try await replica.exchange.sync() }
        // Every replica edits offline.
        var edits: [Commit] = []
        for (index, replica) in replicas.enumerated() {
            edits.append(try await replica.store.save(Doc(title: "edit \(index)")))
        }
        // By hand: the later write is the highest clock, then replica id, then commit id.
        let winner = try #require(edits.indices.max { a, b in
            (edits[a].clock, edits[a].replica ?? "", edits[a].id) < (edits[b].clock, edits[b].replica ?? "", edits[b].id)
        })
        let expected = Doc(title: "edit \(winner)")
        for _ in 0..<2 {
            for replica in replicas.reversed() { try await replica.exchange.sync() }
        }
        for (index, replica) in replicas.enumerated() {
            #expect(try await replica.store.value() == expected, "replica \(index)")
        }
        #expect(expected == Doc(title: "edit 4"), "the replica ten minutes ahead wrote the latest clock")
    }
}

