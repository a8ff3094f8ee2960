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
