import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Exchange with a bare repository by path")
struct LocalRemoteTests {
    @Test func theFirstPushInitialisesAnEmptyRemoteAndReplicasConverge() async throws {
        let lab = try await SyncLab()
        let (one, oneSync) = try lab.replica("one")
        let (two, twoSync) = try lab.replica("two")
        try one.add("from-one")
        let first = try await oneSync.sync()
        #expect(first.pushedCommits == 2 && first.fetchedCommits == 0)
        #expect(try await lab.remoteItems() == ["from-one"])
        let fsck = try await git("--git-dir", lab.remotePath, "fsck", "--strict")
        #expect(fsck.status == 0)

        try two.add("from-two")
        let second = try await twoSync.sync()
        #expect(second.fetchedCommits >= 1)
        #expect(try two.items() == ["from-one", "from-two"])
        try await oneSync.sync()
        #expect(try one.items() == ["from-one", "from-two"])
        #expect(try await lab.remoteItems() == ["from-one", "from-two"])
        #expect(oneSync.status.state == .idle && oneSync.status.ahead == 0 && oneSync.status.behind == 0)
        #expect(oneSync.status.lastSuccess != nil)
        // Nothing new: a sync moves nothing.
        let idle = try await oneSync.sync()
        #expect(idle.pushedCommits == 0 && idle.fetchedCommits == 0)
    }

    /// A sync that moved `cloud` but was stopped before merging it (a crash, a resolver that
    /// threw) leaves `main` without `cloud`'s commits: the next sync merges them before it
    /// pushes, rather than pushing first and being refused for ever.
    @Test func aMergeOfCloudThatDidNotFinishIsFinishedByTheNextSync() async throws {
        let lab = try await SyncLab()
        let (one, oneSync) = try lab.replica("one")
        let (two, twoSync) = try lab.replica("two")
        try one.add("from-one")
        try await oneSync.sync()
        try await twoSync.sync()
        try two.add("from-two")
        try await twoSync.sync()
        // What the stopped sync left: `cloud` at the remote's head, not merged into `main`.
        #expect(try await git("--git-dir", one.path, "fetch", "-q", lab.remotePath, "+main:refs/heads/cloud").status == 0)
        try one.add("local-after")
        #expect(try await one.divergence(of: .main, from: .cloud).behind == 1)

        let report = try await oneSync.sync()
        #expect(report.pushedCommits >= 1)
        #expect(try one.items() == ["from-one", "from-two", "local-after"])
        #expect(try await lab.remoteItems() == ["from-one", "from-two", "local-after"])
        #expect(oneSync.status.ahead == 0 && oneSync.status.behind == 0)
    }

    @Test func conflictingEditsOnFiveReplicasConverge() async throws {
        let lab = try await SyncLab()
        let replicas = try (0..<5).map { try lab.replica("r\($0)") }
        var expected = Set<String>()
        for round in 0..<3 {
            for (index, (store, _)) in replicas.enumerated() {
                try store.add("r\(index)-round\(round)")
                expected.insert("r\(index)-round\(round)")
            }
            for (_, exchange) in replicas { try await exchange.sync() }
        }
        for (_, exchange) in replicas { try await exchange.sync() }
        for (store, _) in replicas { #expect(try store.items() == expected) }
        #expect(try await lab.remoteItems() == expected)
    }

    @Test func twoReplicasPushingAtTheSameMomentBothLand() async throws {
        let lab = try await SyncLab()
        let (one, oneSync) = try lab.replica("one")
        let (two, twoSync) = try lab.replica("two")
        for round in 0..<5 {
            try one.add("one-\(round)")
            try two.add("two-\(round)")
            async let a = oneSync.sync()
            async let b = twoSync.sync()
            _ = try await (a, b)
        }
        try await oneSync.sync()
        try await twoSync.sync()
        let expected = Set((0..<5).flatMap { ["one-\($0)", "two-\($0)"] })
        #expect(try one.items() == expected)
        #expect(try two.items() == expected)
        #expect(try await lab.remoteItems() == expected)
    }

    @Test func aMissingRemoteIsOfflineAndNothingIsLost() async throws {
        let lab = try await SyncLab(createRemote: false)
        let (store, exchange) = try lab.replica("one")
        try store.add("while-offline")
        await expectSync(exchange, failsWith: .offline)
        #expect(exchange.status.state == .offline)
        #expect(exchange.status.lastError != nil)
        try store.add("still-writing")
        // The remote appears: the next sync pushes everything committed meanwhile.
        try await git("init", "--bare", "-q", "-b", "main", lab.folder.child("staging.git"))
        try FileManager.default.moveItem(atPath: lab.folder.child("staging.git"), toPath: lab.remotePath)
        try await exchange.sync()
        #expect(exchange.status.state == .idle)
        #expect(try await lab.remoteItems() == ["while-offline", "still-writing"])
    }

    @Test func aRemoteThatIsNotARepositoryIsAClearErrorAndChangesNothing() async throws {
        let lab = try await SyncLab(createRemote: false)
        try FileManager.default.createDirectory(atPath: lab.remotePath, withIntermediateDirectories: true)
        let (store, exchange) = try lab.replica("one")
        try store.add("kept")
        let before = try await store.forks()
        await expectSync(exchange, failsWith: .notARepository)
        #expect(exchange.status.state == .failed)
        #expect(try await store.forks() == before)
        #expect(try store.items() == ["kept"])
    }

    @Test func aNewerModelVersionOnTheRemoteHaltsUntilTheAppIsUpdated() async throws {
        let lab = try await SyncLab()
        let (store, exchange) = try lab.replica("one")
        try store.add("shared")
        try await exchange.sync()
        // A newer app writes to the remote (canonical JSON, as every writer must): craft its
        // commit with the git CLI.
        let parent = try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try await git("--git-dir", lab.remotePath, "hash-object", "-w", "--stdin", input: "{\n  \"items\": [\n    \"future\",\n    \"shared\"\n  ]\n}\n")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tree = try await git("--git-dir", lab.remotePath, "mktree", input: "100644 blob \(blob)\tvalue.json\n")
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let future = try await git(
            "--git-dir", lab.remotePath, "commit-tree", tree, "-p", parent, "-m",
            "From the future\n\nModel-Version: 999\nFormat-Version: 1\nLamport: 100\n"
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await git("--git-dir", lab.remotePath, "update-ref", "refs/heads/main", future)

        try store.add("local-work")
        let halted = ExchangeError.halted(found: 999, known: 1, commit: try #require(CommitID(future)))
        await #expect(throws: halted) { try await exchange.sync() }
        #expect(exchange.status.state == .halted(found: 999, known: 1))
        // Nothing pushed, nothing merged; local reads and writes go on.
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == future)
        #expect(try store.items() == ["shared", "local-work"])
        try store.add("more-local-work")
        await #expect(throws: halted) { try await exchange.sync() }

        // The app is updated: a build that knows version 999 merges and pushes.
        let upgraded = try await Store<FutureTally>.open(at: store.path)
        let upgradedSync = Exchange(store: upgraded, remote: try Remote(lab.remotePath))
        try await upgradedSync.sync()
        #expect(Set(try await upgraded.value()?.items ?? []) == ["shared", "future", "local-work", "more-local-work"])
        #expect(upgradedSync.status.state == .idle)
    }

    @Test func validationCanRefuseAPushAndHooksAreCalled() async throws {
        let lab = try await SyncLab()
        let finished = Counter()
        let errors = Counter()
        let options = ExchangeOptions(
            validateBeforePush: { commits in
                if commits.contains(where: { $0.subject.contains("secret") }) { throw Refusal() }
            },
            onError: { _ in errors.increment() },
            onFinished: { _ in finished.increment() })
        let (store, exchange) = try lab.replica("one", options: options)
        try store.add("fine")
        try await exchange.sync()
        try store.add("secret")
        await #expect(throws: ExchangeError.validationFailed(reason: "Refusal()")) { try await exchange.sync() }
        #expect(try await lab.remoteItems() == ["fine"])
        #expect(finished.value == 1 && errors.value == 1)
    }

    @Test func eventsReportStatesProgressAndResults() async throws {
        let lab = try await SyncLab()
        let (store, exchange) = try lab.replica("one")
        let events = exchange.events()
        try store.add("a")
        try await exchange.sync()
        var seen: [ExchangeEvent] = []
        for await event in events {
            seen.append(event)
            if case .finished = event { break }
        }
        #expect(seen.first == .state(.syncing))
        #expect(seen.contains(.state(.idle)))
        #expect(seen.contains { if case .progress(let progress) = $0 { progress.direction == .push } else { false } })
    }

    @Test func credentialsInTheURLAreRefused() {
        #expect(throws: ExchangeError.self) { try Remote("https://me:s3cret@example.com/notes.git") }
        do {
            _ = try Remote("https://me:s3cret@example.com/notes.git")
        } catch {
            #expect(!error.description.contains("s3cret"))
        }
        #expect(Credentials.userPassword(username: "me", password: "s3cret").description.contains("s3cret") == false)
    }
}

struct Refusal: Error {}

/// A thread-safe counter for hooks.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

import ForkStoreLocks
