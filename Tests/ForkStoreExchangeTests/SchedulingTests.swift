import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Periodic and change-driven sync")
struct SchedulingTests {
    /// Polls until `condition` holds, for at most `seconds`.
    /// Generous: with 2 cores, other suites running at the same time can hold the cooperative
    /// thread pool for many seconds.
    private func eventually(_ seconds: Double = 60, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test func periodicSyncPushesWithoutBeingAsked() async throws {
        let lab = try await SyncLab()
        let (store, exchange) = try lab.replica("one")
        try store.add("periodic")
        exchange.start(every: .milliseconds(100))
        defer { exchange.stop() }
        #expect(try await eventually { try await lab.remoteItems() == ["periodic"] }, "\(exchange.status)")
    }

    @Test func changesToMainAreSyncedAfterAQuietPeriod() async throws {
        let lab = try await SyncLab()
        let (store, exchange) = try lab.replica("one")
        exchange.syncAfterChanges(quietPeriod: .milliseconds(100))
        defer { exchange.stop() }
        try await Task.sleep(for: .milliseconds(50))
        try store.add("first")
        try store.add("second")
        #expect(try await eventually { try await lab.remoteItems() == ["first", "second"] }, "\(exchange.status)")
    }

    @Test func periodicSyncBacksOffWhileOfflineAndRecovers() async throws {
        let lab = try await SyncLab(createRemote: false)
        let (store, exchange) = try lab.replica("one", options: ExchangeOptions(initialBackoff: .milliseconds(50), maximumBackoff: .milliseconds(400)))
        try store.add("queued")
        exchange.start(every: .milliseconds(100))
        defer { exchange.stop() }
        #expect(try await eventually { exchange.status.state == .offline })
        // The remote appears all at once (created aside, then renamed into place).
        try await git("init", "--bare", "-q", "-b", "main", lab.folder.child("staging.git"))
        try FileManager.default.moveItem(atPath: lab.folder.child("staging.git"), toPath: lab.remotePath)
        #expect(try await eventually { try await lab.remoteItems() == ["queued"] }, "\(exchange.status)")
    }
}
