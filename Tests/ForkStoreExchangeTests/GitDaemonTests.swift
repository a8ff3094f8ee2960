import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Exchange over git:// with a real git daemon")
struct GitDaemonTests {
    @Test func replicasConvergeThroughTheDaemon() async throws {
        let lab = try await SyncLab()
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        try await lab.expectTwoReplicasConverge(through: Remote(daemon.url("remote.git")))
    }

    /// libgit2 reports every object a fetch receives and every delta it resolves; the events
    /// carry a few of them, among them the one that says every object arrived.
    @Test func aFirstSyncReportsItsFetchInAFewProgressEvents() async throws {
        let lab = try await SyncLab()
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let source = try await RecordStore<Task2>.create(at: lab.folder.child("source"))
        try await source.save((0..<2_000).map { Task2(id: "task-\($0)", title: "title \($0)") })
        try await Exchange(store: source, remote: try Remote(daemon.url("remote.git"))).sync()

        let store = try await RecordStore<Task2>.create(at: lab.folder.child("new"))
        let exchange = Exchange(store: store, remote: try Remote(daemon.url("remote.git")))
        let events = exchange.events()
        try await exchange.sync()
        var fetched: [TransferProgress] = []
        for await event in events {
            if case .progress(let progress) = event, progress.direction == .fetch { fetched.append(progress) }
            if case .finished = event { break }
        }
        // 2,000 records are over 4,000 objects (their blobs, the trees above them).
        let last = try #require(fetched.last)
        #expect(last.totalObjects > 4_000 && last.objects == last.totalObjects, "\(last)")
        #expect(fetched.count < 100, "\(fetched.count) progress events")
        #expect(zip(fetched, fetched.dropFirst()).allSatisfy { $0 != $1 }, "no report repeats the one before")
        #expect(try await store.count() == 2_000)
        // The copy of the pack its blobs were checked from while it arrived is gone.
        let transfer = store.path + "/forkstore-transfer"
        #expect(FileManager.default.fileExists(atPath: transfer))
        #expect(!FileManager.default.fileExists(atPath: transfer + "/forkstore-arriving.pack"))
    }

    @Test func aDaemonStoppedMidRunIsOfflineThenCatchesUp() async throws {
        let lab = try await SyncLab()
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let (store, exchange) = try lab.replica("one", url: daemon.url("remote.git"))
        try store.add("before")
        try await exchange.sync()
        daemon.stop()
        try store.add("during-outage")
        await expectSync(exchange, failsWith: .offline)
        #expect(exchange.status.state == .offline)
        try await daemon.start()
        try await exchange.sync()
        #expect(exchange.status.state == .idle)
        #expect(try await lab.remoteItems() == ["before", "during-outage"])
    }

    @Test func aRepositoryTheDaemonDoesNotServeIsAnError() async throws {
        let lab = try await SyncLab()
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let (store, exchange) = try lab.replica("one", url: daemon.url("nothing-here.git"))
        try store.add("kept")
        await expectSync(exchange, failsWith: .notARepository)
        #expect(try store.items() == ["kept"])
    }

    @Test func aPushRefusedByAServerHookIsAnErrorNotAnEndlessRetry() async throws {
        let lab = try await SyncLab()
        let hook = lab.remotePath + "/hooks/pre-receive"
        try "#!/bin/sh\necho 'main is protected'\nexit 1\n".write(toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let (store, exchange) = try lab.replica("one", url: daemon.url("remote.git"))
        try store.add("refused")
        let error = await expectSync(exchange, failsWith: .transport)
        #expect(error.map { "\($0)".contains("refused the push") } == true)
        #expect(exchange.status.state == .failed)
        #expect(try await lab.remoteItems().isEmpty)
    }
}
