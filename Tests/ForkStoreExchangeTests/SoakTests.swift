import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Replicas doing random edits and syncs through one git daemon that is stopped and restarted
/// between rounds. Bounded in rounds; prints its figures. Every edit adds a unique id to an
/// add-wins set, so a lost edit shows.
@Suite("Soak")
struct SoakTests {
    @Test func replicasConvergeAndLoseNothingWhileTheServerComesAndGoes() async throws {
        let replicaCount = 5, rounds = 12
        let lab = try await SyncLab()
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let replicas = try (0..<replicaCount).map { try lab.replica("soak-\($0)", url: daemon.url("remote.git")) }
        var generator = SystemRandomNumberGenerator()
        var edits = Set<String>()
        var restarts = 0, offlineSyncs = 0, syncs = 0
        let started = Date()

        for round in 0..<rounds {
            // The server is down for a random part of the round.
            let outage = Int.random(in: 0..<replicaCount, using: &generator)
            for (index, (store, exchange)) in replicas.enumerated() {
                if index == outage {
                    daemon.stop()
                }
                for edit in 0..<Int.random(in: 1...3, using: &generator) {
                    let id = "r\(index)-round\(round)-edit\(edit)"
                    try store.add(id)
                    edits.insert(id)
                }
                if Bool.random(using: &generator) {
                    syncs += 1
                    do {
                        try await exchange.sync()
                    } catch ExchangeError.offline {
                        offlineSyncs += 1
                    } catch {
                        // Swift 6.3 crashes compiling this `do` without it (see SyncErrors.md).
                        throw error
                    }
                }
            }
            try await daemon.start()
            restarts += 1
        }
        // Let everyone catch up: two passes bring every edit to every replica.
        for _ in 0..<2 {
            for (_, exchange) in replicas {
                try await exchange.sync()
                syncs += 1
            }
        }

        var lost = 0
        for (store, _) in replicas {
            let items = try store.items()
            lost += edits.subtracting(items).count
            #expect(items == edits)
        }
        await #expect(try lab.remoteItems() == edits)
        print("""
            soak: replicas=\(replicaCount) rounds=\(rounds) edits=\(edits.count) syncs=\(syncs) \
            offline-syncs=\(offlineSyncs) server-restarts=\(restarts) lost=\(lost) \
            seconds=\(String(format: "%.1f", Date().timeIntervalSince(started)))
            """)
        #expect(lost == 0)
    }
}
