import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A fetch of several commits is checked commit by commit, each tree read once and each
/// distinct blob checked once: the record counts the walks find, and a blob met again, are
/// held to the same rules as a commit that arrives alone.
@Suite("Checks across the commits of one fetch")
struct IncomingHistoryChecksTests {
    private func count(_ n: Int) -> String { "Model-Version: 1\nFormat-Version: 1\nRecord-Count: \(n)\n" }

    /// A replica holding one record, and the remote it synced with, written by a peer next.
    private func lab() async throws -> (RecordStore<Task2>, Exchange, CraftedRemote, good: String, SyncLab) {
        let lab = try await SyncLab()
        let (store, exchange): (RecordStore<Task2>, Exchange) = try lab.recordReplica("store")
        try await store.save(Task2(id: "good", title: "good"))
        try await exchange.sync()
        let remote = CraftedRemote(path: lab.remotePath)
        return (store, exchange, remote, try await remote.main(), lab)
    }

    @Test func countsThroughAddsRemovalsOfWholeFoldersAndABlobBroughtBackAreTakenWithProgress() async throws {
        let (store, exchange, remote, good, lab) = try await lab()
        let goodFile = try await remote.recordFile(id: "good", content: envelope(id: "good", title: "good"))
        let first = try await remote.recordFile(id: "a", content: envelope(id: "a", title: "first"))
        let second = try await remote.recordFile(id: "a", content: envelope(id: "a", title: "second"))
        let others = [
            try await remote.recordFile(id: "b", content: envelope(id: "b", title: "b")),
            try await remote.recordFile(id: "c", content: envelope(id: "c", title: "c")),
        ]
        var head = try await remote.commit(tree: remote.recordsTree([goodFile, first] + others), on: good, trailers: count(4))
        // `b` and `c` go, with the shard folders that held only them; `a` changes.
        head = try await remote.commit(tree: remote.recordsTree([goodFile, second]), on: head, trailers: count(2))
        // `a`'s first blob comes back: checked once, in the first commit.
        head = try await remote.commit(tree: remote.recordsTree([goodFile, first] + others.prefix(1)), on: head, trailers: count(3))
        try await remote.setMain(head)
        let events = exchange.events()
        try await exchange.sync()
        var checks: [CheckProgress] = []
        for await event in events {
            if case .checkProgress(let check) = event { checks.append(check) }
            if case .finished = event { break }
        }
        // The check says how far it came, ending with all three commits.
        #expect(checks.last?.commits == 3 && checks.last?.totalCommits == 3, "\(checks)")
        #expect(try await store.head().id.hex == head)
        #expect(try await store.count() == 3)
        #expect(try await store.record("a")?.title == "first")
        withExtendedLifetime(lab) {}
    }

    @Test func aCountThatIgnoresARemovedFolderIsRefused() async throws {
        let (store, exchange, remote, good, lab) = try await lab()
        let goodFile = try await remote.recordFile(id: "good", content: envelope(id: "good", title: "good"))
        let others = [
            try await remote.recordFile(id: "b", content: envelope(id: "b", title: "b")),
            try await remote.recordFile(id: "c", content: envelope(id: "c", title: "c")),
        ]
        let added = try await remote.commit(tree: remote.recordsTree([goodFile] + others), on: good, trailers: count(3))
        let removed = try await remote.commit(tree: remote.recordsTree([goodFile]), on: added, trailers: count(3))
        try await remote.setMain(removed)
        let main = try await store.head()
        await #expect {
            try await exchange.sync()
        } throws: { error in
            let rejected = (error as? ExchangeError)?.storeError
            return rejected?.code == .rejectedCommit && rejected?.commit?.hex == removed
                && rejected?.reason?.contains("its Record-Count is 3, but its tree says 1") == true
        }
        #expect(try await store.head() == main)
        withExtendedLifetime(lab) {}
    }

    @Test func aBlobCheckedEarlierInTheFetchIsRefusedUnderAnotherIdsPath() async throws {
        let (store, exchange, remote, good, lab) = try await lab()
        let goodFile = try await remote.recordFile(id: "good", content: envelope(id: "good", title: "good"))
        let a = try await remote.recordFile(id: "a", content: envelope(id: "a", title: "a"))
        let first = try await remote.commit(tree: remote.recordsTree([goodFile, a]), on: good, trailers: count(2))
        // The same blob, at the path of `b`.
        let path = RecordPath(id: "b")
        let moved = (shards: path.shards, name: path.fileName, mode: a.mode, type: a.type, id: a.id)
        let second = try await remote.commit(tree: remote.recordsTree([goodFile, a, moved]), on: first, trailers: count(3))
        try await remote.setMain(second)
        let main = try await store.head()
        await #expect {
            try await exchange.sync()
        } throws: { error in
            let rejected = (error as? ExchangeError)?.storeError
            return rejected?.code == .rejectedCommit && rejected?.commit?.hex == second
                && rejected?.reason?.contains("it holds record 'a', whose path is") == true
        }
        #expect(try await store.head() == main)
        withExtendedLifetime(lab) {}
    }

    private typealias File = (shards: [String], name: String, mode: String, type: String, id: String)

    /// A fetch of `count` commits, each adding record `r<n>`; `broken` maps a commit's number to
    /// the file it brings instead.
    private func fetch(
        _ commits: Int, broken: [Int: (CraftedRemote) async throws -> File] = [:]
    ) async throws -> (RecordStore<Task2>, Exchange, heads: [String], SyncLab) {
        let (store, exchange, remote, good, lab) = try await lab()
        var files = [try await remote.recordFile(id: "good", content: envelope(id: "good", title: "good"))]
        var heads: [String] = []
        var head = good
        for number in 0..<commits {
            if let file = broken[number] {
                files.append(try await file(remote))
            } else {
                files.append(try await remote.recordFile(id: "r\(number)", content: envelope(id: "r\(number)", title: "\(number)")))
            }
            head = try await remote.commit(tree: remote.recordsTree(files), on: head, trailers: count(files.count))
            heads.append(head)
        }
        try await remote.setMain(head)
        return (store, exchange, heads, lab)
    }

    @Test func aFetchWithTwoBrokenCommitsNamesTheOldest() async throws {
        // Trees and blobs are checked newest commit first, so commit 4 fails first, but the
        // refusal names the oldest commit that breaks a rule: the one a replica would stop at.
        let broken: [Int: (CraftedRemote) async throws -> File] = [
            1: { remote in try await remote.recordFile(id: "r1", content: "{not json") },
            4: { remote in try await remote.recordFile(id: "r4", content: "{also not json") },
        ]
        let (store, exchange, heads, lab) = try await fetch(6, broken: broken)
        let main = try await store.head()
        await #expect {
            try await exchange.sync()
        } throws: { error in
            let rejected = (error as? ExchangeError)?.storeError
            return rejected?.code == .rejectedCommit && rejected?.commit?.hex == heads[1]
                && rejected?.reason?.contains("it is not valid JSON") == true
        }
        #expect(try await store.head() == main)
        withExtendedLifetime(lab) {}
    }
}
