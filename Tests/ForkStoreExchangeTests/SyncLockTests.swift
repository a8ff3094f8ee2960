import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Syncs of one store run one at a time, across processes and within one: a sync waits for
/// the one running, for ``ExchangeOptions/busyTimeout``, then fails as busy.
@Suite("One sync of a store at a time")
struct SyncLockTests {
    @Test func aSyncWaitsForTheRunningOneThenReportsBusy() async throws {
        let lab = try await SyncLab()
        let (store, _) = try lab.replica("one")
        try store.add("kept")
        // Another sync holds the store's sync lock (a handle of its own, as another process has).
        let holder = try SyncLockHolder(store.path)
        let impatient = Exchange(store: store, remote: try Remote(lab.remotePath), options: ExchangeOptions(busyTimeout: .milliseconds(300)))
        let started = ContinuousClock.now
        await #expect(throws: ExchangeError.busy(waited: .milliseconds(300))) { try await impatient.sync() }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(impatient.status.lastError == .busy(waited: .milliseconds(300)))
        #expect(ExchangeError.busy(waited: .seconds(1)).isTransient)
        #expect(ExchangeError.busy(waited: .seconds(30)).description.contains("Another sync of this store is running"))
        await #expect(try lab.remoteItems().isEmpty)

        // The running sync finishes after 0.5 s: a patient sync waits for it, then runs.
        let patient = Exchange(store: store, remote: try Remote(lab.remotePath), options: ExchangeOptions(busyTimeout: .seconds(20)))
        let waiting = ContinuousClock.now
        async let report = patient.sync()
        try await Task.sleep(for: .milliseconds(500))
        holder.release()
        #expect(try await report.pushedCommits >= 1)
        #expect(ContinuousClock.now - waiting >= .milliseconds(450))
        await #expect(try lab.remoteItems() == ["kept"])
    }
}

/// Holds a store's sync lock through a file handle of its own, as a sync in another process
/// would, until released.
private final class SyncLockHolder: Sendable {
    private let descriptor: Int32

    init(_ storePath: String) throws {
        descriptor = open(storePath + "/forkstore-sync.flock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw POSIXError(.EBUSY) }
    }

    func release() {
        flock(descriptor, LOCK_UN)
    }

    deinit { close(descriptor) }
}
