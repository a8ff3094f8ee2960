import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Per-user access control by a real server: gitolite over ssh.
@Suite("Exchange with gitolite (per-user access over ssh)")
struct GitoliteTests {
    @Test func aReadOnlyUserPullsButItsPushIsRefusedOnce() async throws {
        let folder = TemporaryFolder("forkstore-gitolite")
        let server = try await GitoliteServer(folder: folder.child("server"))
        defer { server.process.stop() }
        let alice = try await RecordStore<Task2>.create(at: folder.child("alice"))
        let aliceSync = Exchange(store: alice, remote: try server.remote(as: "alice"))
        try await alice.save(Task2(id: "a", title: "by alice"))
        try await aliceSync.sync()

        let bob = try await RecordStore<Task2>.create(at: folder.child("bob"))
        let events = Counter()
        let bobSync = Exchange(
            store: bob, remote: try server.remote(as: "bob"),
            options: ExchangeOptions(onError: { _ in events.increment() }))
        try await bobSync.sync()
        #expect(try await bob.record("a")?.title == "by alice")

        try await bob.save(Task2(id: "b", title: "by bob"))
        do {
            try await bobSync.sync()
            Issue.record("a read-only user pushed")
        } catch {
            guard error.code == .accessDenied, let reason = error.reason else {
                Issue.record("expected accessDenied, got \(error)")
                return
            }
            #expect(reason.contains("DENIED"), "\(reason)")
            #expect(!error.isTransient)
            #expect(bobSync.status.state == .failed)
        }
        #expect(events.value == 1)
        let logs = try FileManager.default.contentsOfDirectory(atPath: server.folder + "/home/.gitolite/logs")
        let denials = try logs.map { try String(contentsOfFile: server.folder + "/home/.gitolite/logs/" + $0, encoding: .utf8) }
            .joined().split(separator: "\n").filter { $0.contains("bob") && $0.contains("DENIED") }
        #expect(denials.count == 1, "refused once, not retried: \(denials)")
        // Bob's note stays local; alice still pulls and pushes.
        #expect(try await bob.record("b") != nil)
        try await alice.save(Task2(id: "a2", title: "alice again"))
        try await aliceSync.sync()
    }
}
