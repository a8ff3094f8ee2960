import ForkStoreTestSupport
import Foundation
import Testing

/// Many replicas through one remote (issue 25): 50 stores, each in a process of its own, make
/// 20 edits each, syncing after every 10, through one smart-HTTP remote (lighttpd + git
/// http-backend), 8 processes at a time, then sync until all agree. Every edit adds a unique
/// item to an add-wins set, so a lost edit shows. Bounded: no replica starts after 360 s, one
/// still running a minute later is stopped, and 3 rounds of catching up at most; the test has
/// 8 min. It prints its figures (scripts/replica-benchmark.sh runs more). scripts/test.sh runs
/// it alone, after the other tests, and not against libgit2 1.8; scripts/sanitizers.sh leaves
/// it out.
@Suite("Many replicas")
struct ManyReplicasTests {
    @Test(.timeLimit(.minutes(8)))
    func replicasConvergeThroughOneSmartHTTPRemoteLosingNothing() async throws {
        let replicas = 50
        let folder = TemporaryFolder("forkstore-swarm")
        let figures = try await ReplicaSwarm(replicas: replicas, edits: 20, timeLimit: 360).run(in: folder.path)
        print("many replicas: \(replicas) x 20 edits, \(figures)")
        #expect(figures.problems.isEmpty, "\(figures.problemSummary)")
        #expect(figures.syncs >= replicas * 2)
        // One round of catching up brings every replica to the remote's tree: the remote
        // stopped moving when the last edit was pushed.
        #expect(figures.catchUpRounds == 1)
    }
}
