import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation

/// The `replica` mode: edits and syncs; a lost push race is the one failure tried again.
/// A sync that began before the deadline may finish after it, but not more than a minute
/// after: then the process ends with status 3, so a swarm never waits on a stuck replica.
func runReplica(store path: String, url: String, prefix: String, edits: Int, syncEvery: Int, deadline: Date) async throws {
    let hardStop = deadline.addingTimeInterval(60)
    Thread.detachNewThread {
        Thread.sleep(until: hardStop)
        FileHandle.standardError.write(Data("forkstore-stress-writer: replica \(prefix) still running a minute past its deadline\n".utf8))
        exit(3)
    }
    let exists = FileManager.default.fileExists(atPath: path)
    let store = try await exists ? Store<Tally>.open(at: path) : Store<Tally>.create(at: path)
    let exchange = Exchange(store: store, remote: try Remote(url))
    for index in 0..<edits {
        try store.add("\(prefix)-\(index)")
        if (index + 1) % syncEvery == 0 || index == edits - 1 { try await syncUntilPushed(exchange, deadline: deadline) }
    }
    if edits == 0 { try await syncUntilPushed(exchange, deadline: deadline) }
}

private func syncUntilPushed(_ exchange: Exchange, deadline: Date) async throws {
    while true {
        let attempts: Int
        do {
            acknowledge("synced \(try await exchange.sync().pushAttempts)")
            return
        } catch {
            guard error.code == .pushRejected, let rejected = error.attempts, Date() < deadline else { throw error }
            attempts = rejected
        }
        acknowledge("rejected \(attempts)")
        try await Task.sleep(for: .milliseconds(Int.random(in: 200...1000)))
    }
}

/// The `swarm` mode: REPLICAS [EDITS SYNC_EVERY CONCURRENCY SECONDS], numbers all. Returns
/// whether the swarm converged with every edit; its folder is gone by then.
func runSwarm(_ arguments: ArraySlice<String>) async throws -> Bool {
    let numbers = arguments.compactMap { Int($0) }
    guard numbers.count == arguments.count else { fail("usage") }
    let defaults = [200, 20, 10, 8, 3600]
    let given = numbers + defaults.dropFirst(numbers.count)
    let swarm = ReplicaSwarm(
        replicas: given[0], edits: given[1], syncEvery: given[2], concurrency: given[3], timeLimit: TimeInterval(given[4]))
    let folder = TemporaryFolder("forkstore-swarm")
    let figures = try await swarm.run(in: folder.path)
    print("\(swarm.replicas) replicas x \(swarm.edits) edits, sync every \(swarm.syncEvery), \(swarm.concurrency) at once: \(figures)")
    return figures.problems.isEmpty
}
