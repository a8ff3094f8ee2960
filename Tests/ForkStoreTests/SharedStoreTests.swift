import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// The fork, history and merge API every store shares, run over both layouts: a single value
/// (a `Tally` of items) and a record collection (one record per item).
@Suite("Forks, history and merges on both layouts")
struct SharedStoreTests {
    @Test(arguments: Layout.allCases)
    func createListAndDeleteForks(_ layout: Layout) throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        try store.add("a")
        let ui = try Fork("ui"), drafts = try Fork("feature/drafts")
        let start = try store.createFork(ui)
        #expect(start.id == (try store.head()).id)
        try store.createFork(drafts, from: ui)
        #expect(try store.forks() == [drafts, .main, ui])
        #expect(try store.hasFork(ui) && !store.hasFork(try Fork("nope")))
        #expect(throws: StoreError.forkAlreadyExists("ui")) { try store.createFork(ui) }
        try store.deleteFork(ui)
        #expect(try store.forks() == [drafts, .main])
        #expect(throws: StoreError.forkNotFound("ui")) { try store.deleteFork(ui) }
        #expect(throws: StoreError.protectedFork("main")) { try store.deleteFork(.main) }
        #expect(throws: StoreError.forkNotFound("ui")) { try store.items(ui) }
    }

    @Test(arguments: Layout.allCases)
    func forkFromAnEarlierCommit(_ layout: Layout) throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        let first = try store.add("a")
        try store.add("b")
        let old = try Fork("old")
        try store.createFork(old, at: first.id)
        #expect(try store.items(old) == ["a"])
        #expect(try store.items() == ["a", "b"])
        let bogus = try #require(CommitID(String(repeating: "ab", count: 20)))
        #expect(throws: StoreError.commitNotFound(bogus.hex)) { try store.createFork(try Fork("x"), at: bogus) }
    }

    @Test(arguments: Layout.allCases)
    func historyListsCommitsNewestFirst(_ layout: Layout) throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        try store.add("one")
        try store.add("two")
        let history = try store.history()
        #expect(history.map(\.subject) == ["Add two", "Add one", "Create store"])
        #expect(history.allSatisfy { $0.modelVersion == 1 && $0.formatVersion == 1 })
        #expect(history[0].lamport == history[1].lamport + 1)
        #expect(try store.history(limit: 2).count == 2)
        #expect(try store.commit(history[1].id) == history[1])
        #expect(try store.commit(matching: String(history[1].id.hex.prefix(8))) == history[1])
        #expect(throws: StoreError.commitNotFound("zzzz")) { try store.commit(matching: "zzzz") }
        let report = try store.replayHistory()
        #expect(report.commits == 3 && report.firstFailure == nil)
    }

    @Test(arguments: Layout.allCases)
    func fastForwardThenUpToDate(_ layout: Layout) throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        let ui = try Fork("ui")
        try store.createFork(ui)
        let commit = try store.add("a", to: ui)
        #expect(try store.divergence(of: ui, from: .main) == (1, 0))
        #expect(try store.mergeIntoMain(from: ui) == .fastForwarded(to: commit.id))
        #expect(try store.mergeIntoMain(from: ui) == .upToDate)
        #expect(try store.mergeFromMain(into: ui) == .upToDate)
        #expect(try store.merge(from: .main, into: .main) == .upToDate)
        #expect(try store.divergence(of: ui, from: .main) == (0, 0))
    }

    @Test(arguments: Layout.allCases)
    func threeWayMergeBothWays(_ layout: Layout) async throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        try store.add("base")
        try store.add("doomed")
        let ui = try Fork("ui")
        try await store.createFork(ui)
        try store.add("on-main")
        try store.add("on-ui", to: ui)
        try store.drop("doomed", from: ui)
        #expect(try await store.divergence(of: ui, from: .main) == (2, 1))
        guard case .merged(let merge, _) = try await store.mergeIntoMain(from: ui) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(merge.parents.count == 2)
        #expect(merge.trailer("Merged-Fork") == "ui")
        #expect(merge.trailer("Merge-Strategy") == (layout == .records ? "record-by-record" : "mergeable"))
        #expect(try store.items() == ["base", "on-main", "on-ui"])
        // Bringing main back into the fork fast-forwards it; merging again changes nothing.
        #expect(try await store.mergeFromMain(into: ui) == .fastForwarded(to: merge.id))
        #expect(try await store.mergeIntoMain(from: ui) == .upToDate)
        #expect(try store.items(ui) == ["base", "on-main", "on-ui"])
        try await expectFsckClean(store.path)
    }

    @Test(arguments: Layout.allCases)
    func syncAllForksLeavesEveryForkButCloudEqual(_ layout: Layout) async throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        try store.add("base")
        let forks = try ["a", "b", "c"].map { try Fork($0) }
        for fork in forks {
            try await store.createFork(fork)
            try store.add("on-\(fork)", to: fork)
        }
        // `cloud` as an exchange would have left it; the app cannot write it.
        #expect(throws: StoreError.protectedFork("cloud")) { try store.createFork(.cloud) }
        try await git("--git-dir", store.path, "update-ref", "refs/heads/cloud", "main")
        #expect(throws: StoreError.protectedFork("cloud")) { try store.add("x", to: .cloud) }
        #expect(throws: StoreError.protectedFork("cloud")) { try store.mergeFromMain(into: .cloud) }
        #expect(throws: StoreError.protectedFork("cloud")) { try store.deleteFork(.cloud) }
        try await store.syncAllForks()
        let everything: Set<String> = ["base", "on-a", "on-b", "on-c"]
        for fork in forks + [.main] {
            #expect(try store.items(fork) == everything, "fork \(fork)")
        }
        #expect(try store.items(.cloud) == ["base"])
    }

    @Test(arguments: Layout.allCases)
    func crissCrossMergesConverge(_ layout: Layout) async throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        try store.add("base")
        try store.add("doomed")
        let a = try Fork("a"), b = try Fork("b"), bEarly = try Fork("b-early")
        try await store.createFork(a)
        try await store.createFork(b)
        try store.add("a1", to: a)
        try store.drop("doomed", from: b)
        try store.add("b1", to: b)
        // Each replica merges the other's head as it was: two merges with two shared parents.
        try await store.createFork(bEarly, from: b)
        try await store.merge(from: a, into: b)
        try await store.merge(from: bEarly, into: a)
        try store.add("a2", to: a)
        try store.add("b2", to: b)
        // Now the two heads have two merge bases: the classic criss-cross.
        let aCopy = try Fork("a-copy")
        try await store.createFork(aCopy, from: a)
        try await store.merge(from: b, into: a)
        try await store.merge(from: aCopy, into: b)
        let expected: Set<String> = ["base", "a1", "b1", "a2", "b2"]
        #expect(try store.items(a) == expected)
        #expect(try store.items(b) == expected)
        let bases = try await git("--git-dir", store.path, "merge-base", "--all", "a-copy", "b~1")
        #expect(bases.stdout.split(separator: "\n").count == 2, "the scenario must be a criss-cross")
        try await expectFsckClean(store.path)
    }

    @Test(arguments: Layout.allCases)
    func unrelatedHistoriesGoThroughTheSalvage(_ layout: Layout) async throws {
        let folder = TemporaryFolder()
        let one = try layout.create(at: folder.child("one"))
        let two = try layout.create(at: folder.child("two"))
        try one.add("from-one")
        try two.add("from-two")
        // Bring the other store's history in as a fork with the git CLI.
        let fetched = try await git("--git-dir", one.path, "fetch", "-q", two.path, "main:refs/heads/other")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let other = try Fork("other")
        guard case .merged(let merge, _) = try await one.mergeIntoMain(from: other) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(merge.trailer("Merge-Strategy") == "salvage")
        #expect(try one.items() == ["from-one", "from-two"])
        try await expectFsckClean(one.path)
    }

    @Test(arguments: Layout.allCases)
    func aMergeThatWouldBringInAnUnknownModelVersionIsRefused(_ layout: Layout) async throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        try store.add("a")
        let future = try Fork("future")
        try await store.createFork(future)
        // A commit from a newer build, made with the git CLI on top of the fork.
        let head = try await store.head(of: future)
        let message = "From the future\n\nModel-Version: 7\nFormat-Version: 1\nLamport: 9\n"
        let made = try await git("--git-dir", store.path, "commit-tree", "\(head.id.hex)^{tree}", "-p", head.id.hex, "-m", message)
        try await git("--git-dir", store.path, "update-ref", "refs/heads/future", made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let id = try #require(CommitID(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let before = try await store.head()
        #expect(throws: StoreError.unknownModelVersion(found: 7, known: 1, commit: id)) { try store.mergeIntoMain(from: future) }
        #expect(throws: StoreError.unknownModelVersion(found: 7, known: 1, commit: id)) { try store.add("b", to: future) }
        #expect(try await store.head() == before)
        #expect(try await store.replayHistory().firstFailure?.commit == id)
    }

    @Test(arguments: Layout.allCases)
    func changesArePublished(_ layout: Layout) async throws {
        let (folder, store) = try layout.makeStore()
        _ = folder
        let stream = store.changes()
        let ui = try Fork("ui")
        let created = try await store.createFork(ui)
        let commit = try store.add("a", to: ui)
        #expect(try await store.mergeIntoMain(from: ui) == .fastForwarded(to: commit.id))
        try await store.deleteFork(ui)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == StoreChange(fork: ui, commit: created.id, kind: .forkCreated))
        #expect(await iterator.next() == StoreChange(fork: ui, commit: commit.id, kind: .committed))
        #expect(await iterator.next() == StoreChange(fork: .main, commit: commit.id, mergedFrom: ui, kind: .fastForwarded))
        #expect(await iterator.next() == StoreChange(fork: ui, commit: commit.id, kind: .forkDeleted))
    }
}
