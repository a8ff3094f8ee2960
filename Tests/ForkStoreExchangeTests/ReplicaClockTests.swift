import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
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

    /// A replica whose clock is behind writes after what it has seen: by clock while it is
    /// behind by less than the maximum skew, by history (its write descends from the other's)
    /// when it is further behind, where its clock stays its own.
    @Test(arguments: [-0.5, -3600])
    func aReplicaBehindWritesLaterOnceItHasSeenTheOthersCommit(_ offset: TimeInterval) async throws {
        let lab = try await SyncLab()
        let (ahead, aheadSync) = try replica("ahead", in: lab, offset: 0)
        let (behind, behindSync) = try replica("behind", in: lab, offset: offset)
        try await ahead.save(Doc(title: "base"))
        try await aheadSync.sync()
        try await behindSync.sync()
        let first = try await ahead.save(Doc(title: "from the replica on time"))
        try await aheadSync.sync()
        try await behindSync.sync()
        let second = try await behind.save(Doc(title: "from the replica behind"))
        #expect((second.clock > first.clock) == (offset > -1))
        #expect(second.clock.milliseconds < Int64(Date().timeIntervalSince1970 * 1000))
        try await behindSync.sync()
        try await aheadSync.sync()
        #expect(try await ahead.value() == Doc(title: "from the replica behind"))
        #expect(try await behind.value() == Doc(title: "from the replica behind"))
        // And a write the replica on time makes later still wins over it.
        let third = try await ahead.save(Doc(title: "on time again"))
        #expect(third.clock > second.clock)
        try await aheadSync.sync()
        try await behindSync.sync()
        #expect(try await behind.value() == Doc(title: "on time again"))
    }

    @Test func fiveReplicasConvergeOnTheEditWithTheHighestClock() async throws {
        let lab = try await SyncLab()
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
    /// One peer's commit with a clock at the top of the range (the Clock and Lamport trailers'
    /// largest values) is taken, but no replica's clock follows it past the maximum skew: the
    /// later of two concurrent edits made after it still wins, whichever replica made it, and
    /// the commits the replicas write stay within the trailers' ranges. With a one-day skew the
    /// replica with the larger id won every round for a day.
    @Test func aCommitFromTheFarFutureDoesNotFreezeTheOthersClocks() async throws {
        let lab = try await SyncLab()
        let wall = TestClock(Date())
        func replica(_ name: String) throws -> (Store<Doc>, Exchange) {
            let store = try Store<Doc>.create(at: lab.folder.child(name), options: wall.options)
            return (store, Exchange(store: store, remote: try Remote(lab.remotePath)))
        }
        let (a, aSync) = try replica("a"), (b, bSync) = try replica("b")
        try await a.save(Doc(title: "base"))
        try await aSync.sync()
        try await bSync.sync()
        let remote = CraftedRemote(path: lab.remotePath)
        let value = try CanonicalJSON.canonicalize(Array(#"{"title":"from the far future"}"#.utf8))
        let tree = try await remote.tree([("100644", "blob", remote.blob(String(decoding: value, as: UTF8.self)), "value.json")])
        try await remote.setMain(try remote.commit(tree: tree, on: remote.main(), trailers: """
            Model-Version: 1
            Format-Version: 1
            Lamport: 999999999999999
            Clock: 999999999999999-999999999
            Replica: ffffffffffffffff

            """))
        try await aSync.sync()
        try await bSync.sync()
        for round in 0..<6 {
            let (first, second) = round.isMultiple(of: 2) ? ((a, aSync), (b, bSync)) : ((b, bSync), (a, aSync))
            wall.advance(10)
            try await first.0.save(Doc(title: "earlier \(round)"))
            wall.advance(5)
            try await second.0.save(Doc(title: "later \(round)"))
            try await first.1.sync()
            try await second.1.sync()
            try await first.1.sync()
            #expect(try await a.value() == Doc(title: "later \(round)"), "round \(round)")
            #expect(try await b.value() == Doc(title: "later \(round)"), "round \(round)")
        }
        // What the replicas wrote stays within the trailers' ranges: a new replica takes it all.
        let (c, cSync) = try replica("c")
        try await cSync.sync()
        #expect(try await c.value() == Doc(title: "later 5"))
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)
    }
}
