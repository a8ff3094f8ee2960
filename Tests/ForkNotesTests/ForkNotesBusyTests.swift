import ForkStoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Processes sharing one store: syncs run one at a time, and a store someone else holds longer
/// than forknotes waits ends with the busy exit code (5), never an internal error.
@Suite("forknotes when the store is busy")
struct ForkNotesBusyTests {
    /// Four processes add and sync at once against one local remote. Rounds per process:
    /// FORKNOTES_STRESS_ROUNDS (25 by default; the figure is 200).
    @Test func concurrentSyncsOfOneStoreSucceedOrReportBusyAndLoseNothing() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        try await cli.ok("init", "--store", cli.store, "--remote", remote)
        try await cli.ok("sync", "--store", cli.store)
        let lanes = 4
        let rounds = ProcessInfo.processInfo.environment["FORKNOTES_STRESS_ROUNDS"].flatMap(Int.init) ?? 25
        let started = Date()
        let outcomes = try await withThrowingTaskGroup(of: [(status: Int32, message: String)].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    var outcomes: [(status: Int32, message: String)] = []
                    for round in 0..<rounds {
                        let added = try await cli("add", "--store", cli.store, "--title", "lane \(lane) round \(round)")
                        let synced = try await cli("sync", "--store", cli.store)
                        outcomes += [(added.status, added.stderr), (synced.status, synced.stderr)]
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let seconds = Date().timeIntervalSince(started)
        let byStatus = Dictionary(grouping: outcomes, by: \.status).mapValues(\.count)
        print("\(lanes) processes × \(rounds) rounds (add + sync): exit codes \(byStatus.sorted { $0.key < $1.key }) in \(Int(seconds)) s")
        let others = outcomes.filter { $0.status != 0 && $0.status != 5 }
        #expect(others.isEmpty, "\(others.count) other outcomes, first: \(others.prefix(3).map(\.message))")

        try await cli.ok("sync", "--store", cli.store)
        let titles = Set(try await cli.notes().compactMap { $0["title"] as? String })
        let expected = Set((0..<lanes).flatMap { lane in (0..<rounds).map { "lane \(lane) round \($0)" } })
        #expect(expected.subtracting(titles).isEmpty, "lost: \(expected.subtracting(titles).sorted().prefix(5))")
        // The remote holds every note too: a new replica gets them all.
        let other = cli.folder.child("other")
        try await cli.ok("init", "--store", other, "--remote", remote)
        try await cli.ok("sync", "--store", other)
        let elsewhere = try await cli.ok("list", "--store", other, "--json")
        let remoteTitles = Set((try JSONSerialization.jsonObject(with: Data(elsewhere.utf8)) as? [[String: Any]] ?? []).compactMap { $0["title"] as? String })
        #expect(expected.subtracting(remoteTitles).isEmpty)
        for repository in [cli.store, remote, other] {
            let fsck = try await git("--git-dir", repository, "fsck", "--strict")
            #expect(fsck.status == 0, "\(repository): \(fsck.stderr)")
        }
    }

    @Test func aSyncThatAnotherSyncKeepsWaitingExitsBusy() async throws {
        let cli = ForkNotes()
        let remote = cli.folder.child("remote.git")
        try await git("init", "--bare", "-q", "-b", "main", remote)
        try await cli.ok("init", "--store", cli.store, "--remote", remote)
        try await cli.ok("sync", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "kept")
        // Another sync holds the store's sync lock: this test process, through a file of its own.
        let holder = open(cli.store + "/forkstore-sync.flock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        let started = Date()
        let result = try await cli("sync", "--store", cli.store, environment: ["FORKNOTES_BUSY_TIMEOUT": "1"])
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("Another sync of this store is running"))
        #expect(Date().timeIntervalSince(started) >= 1)
        flock(holder, LOCK_UN)
        #expect(try await cli.ok("sync", "--store", cli.store).contains("pushed 1 commit"))
    }

    @Test func aWriteARunningGitCommandBlocksExitsBusyNamingTheLockFile() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        try await cli.ok("add", "--store", cli.store, "--title", "before")
        let head = try await git("--git-dir", cli.store, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let transaction = try await onOwnThread {
            try HeldGitTransaction(gitDirectory: cli.store, update: "refs/heads/main \(head) \(head)")
        }
        let result = try await cli("add", "--store", cli.store, "--title", "blocked")
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("refs/heads/main.lock"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: cli.store + "/refs/heads/main.lock"))
        #expect(try await onOwnThread { try transaction.commit() }.contains("commit: ok"))
        try await cli.ok("add", "--store", cli.store, "--title", "after")
        #expect(Set(try await cli.notes().compactMap { $0["title"] as? String }) == ["before", "after"])
    }
}
