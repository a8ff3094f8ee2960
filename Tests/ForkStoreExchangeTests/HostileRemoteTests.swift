import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A bare remote written by a hostile or buggy peer with git's plumbing.
struct CraftedRemote {
    let path: String

    private func plumbing(_ arguments: String..., input: String? = nil) async throws -> String {
        let result = try await run("/usr/bin/env", ["git", "--git-dir", path] + arguments, environment: [
            "GIT_AUTHOR_NAME": "Peer", "GIT_AUTHOR_EMAIL": "peer@localhost",
            "GIT_COMMITTER_NAME": "Peer", "GIT_COMMITTER_EMAIL": "peer@localhost",
        ], input: input)
        #expect(result.status == 0, "git \(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func blob(_ content: String) async throws -> String { try await plumbing("hash-object", "-w", "--stdin", input: content) }

    /// A tree of `mode type id name` entries (sorted by git's rules by the caller).
    func tree(_ entries: [(mode: String, type: String, id: String, name: String)]) async throws -> String {
        try await plumbing("mktree", "--missing", input: entries.map { "\($0.mode) \($0.type) \($0.id)\t\($0.name)\n" }.joined())
    }

    /// A records tree holding these files at `records/<s1>/<s2>/<name>` (each with its own shards).
    func recordsTree(_ files: [(shards: [String], name: String, mode: String, type: String, id: String)]) async throws -> String {
        var root: [(mode: String, type: String, id: String, name: String)] = []
        for first in Set(files.map { $0.shards[0] }).sorted() {
            var level: [(mode: String, type: String, id: String, name: String)] = []
            let underFirst = files.filter { $0.shards[0] == first }
            for second in Set(underFirst.map { $0.shards[1] }).sorted() {
                let leaves = underFirst.filter { $0.shards[1] == second }.sorted { $0.name < $1.name }
                level.append(("040000", "tree", try await tree(leaves.map { ($0.mode, $0.type, $0.id, $0.name) }), second))
            }
            root.append(("040000", "tree", try await tree(level), first))
        }
        return try await tree([("040000", "tree", try await tree(root), "records")])
    }

    /// A record file entry at the path of `id`.
    func recordFile(id: String, content: String, mode: String = "100644") async throws -> (shards: [String], name: String, mode: String, type: String, id: String) {
        let path = RecordPath(id: id)
        return (path.shards, path.fileName, mode, "blob", try await blob(content))
    }

    func main() async throws -> String { try await plumbing("rev-parse", "main") }

    func commit(tree: String, on parent: String, trailers: String = "Model-Version: 1\nFormat-Version: 1\n") async throws -> String {
        try await plumbing("commit-tree", tree, "-p", parent, "-m", "From a peer\n\n" + trailers)
    }

    func setMain(_ commit: String) async throws { _ = try await plumbing("update-ref", "refs/heads/main", commit) }
}

/// A record as a canonical envelope, as every writer must store it.
func envelope(id: String, title: String, modelVersion: Int = 1, recordID: String? = nil) throws -> String {
    let text = #"{"id":"\#(id)","modelVersion":\#(modelVersion),"record":{"id":"\#(recordID ?? id)","title":"\#(title)"}}"#
    return String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
}

/// Each kind of bad data a remote can send is refused before it reaches `cloud` or `main`,
/// with the commit, the path and the rule named; the store stays usable, and a fixed remote
/// syncs again.
@Suite("A remote that sends data breaking the format")
struct HostileRemoteTests {
    /// How a crafted commit on top of the remote's good head is built.
    typealias Craft = @Sendable (CraftedRemote, _ good: String) async throws -> String

    /// Syncs a replica with a good record, lets `craft` put a bad commit on the remote, and
    /// checks that the next sync refuses it and everything else holds.
    /// Over `git://` (``GitDaemon``) rather than the folder, the fetch's blobs are checked
    /// while its pack arrives.
    private func expectRefused(
        expecting check: (ExchangeError) -> Bool, options: StoreOptions = StoreOptions(), overGit: Bool = false, _ craft: Craft,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let lab = try await SyncLab()
        var (store, exchange): (RecordStore<Task2>, Exchange) = try lab.recordReplica("store", options: options)
        let daemon = overGit ? try await GitDaemon(basePath: lab.folder.path) : nil
        if let daemon { exchange = Exchange(records: store, remote: try Remote(daemon.url("remote.git"))) }
        try await store.save(Task2(id: "good", title: "good"))
        try await exchange.sync()
        let remote = CraftedRemote(path: lab.remotePath)
        let good = try await remote.main()
        let bad = try await craft(remote, good)
        try await remote.setMain(bad)
        let (main, cloud) = (try await store.head(), try await store.head(of: .cloud))
        let before = try FileManager.default.contentsOfDirectory(atPath: lab.folder.path).sorted()

        do {
            try await exchange.sync()
            Issue.record("the sync took the bad commit", sourceLocation: sourceLocation)
        } catch {
            #expect(check(error), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(try await store.head() == main, sourceLocation: sourceLocation)
        #expect(try await store.head(of: .cloud) == cloud, sourceLocation: sourceLocation)
        if exchange.status.lastError?.storeError?.code == .rejectedCommit {
            let quarantined = try await git("--git-dir", store.path + "/forkstore-transfer", "rev-parse", "refs/forkstore/quarantine")
            #expect(quarantined.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == bad, sourceLocation: sourceLocation)
            #expect(exchange.status.quarantine?.head.hex == bad, sourceLocation: sourceLocation)
        }
        #expect(try await git("--git-dir", store.path, "fsck", "--strict", "--no-dangling").status == 0, sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: lab.folder.path).sorted() == before, sourceLocation: sourceLocation)
        // Local work goes on, and once the remote is fixed (a peer's good commit in place of
        // the bad one) the sync goes through: it removes the refused fetch from the quarantine,
        // and none of it reaches the store.
        try await store.save(Task2(id: "local", title: "written after the refusal"))
        let fixed = try await remote.commit(
            tree: remote.recordsTree([
                remote.recordFile(id: "good", content: envelope(id: "good", title: "good")),
                remote.recordFile(id: "peer", content: envelope(id: "peer", title: "from the fixed peer")),
            ]), on: good)
        try await remote.setMain(fixed)
        try await exchange.sync()
        #expect(exchange.status.quarantine == nil, sourceLocation: sourceLocation)
        #expect(try await remote.main() == store.head().id.hex, sourceLocation: sourceLocation)
        #expect(try await store.count() == 3, sourceLocation: sourceLocation)
        #expect(try await git("--git-dir", store.path, "fsck", "--strict", "--no-dangling").status == 0, sourceLocation: sourceLocation)
        #expect(try await git("--git-dir", store.path, "cat-file", "-e", bad).status != 0, "the refused commit reached the store", sourceLocation: sourceLocation)
        withExtendedLifetime(daemon) {}
    }

    private static func rejected(_ words: String) -> (ExchangeError) -> Bool {
        { error in
            guard let rejected = error.storeError, rejected.code == .rejectedCommit, let rule = rejected.reason else { return false }
            return rule.contains(words)
        }
    }

    @Test func aRecordOfANewerModelVersionInAnOlderCommitHalts() async throws {
        try await expectRefused(expecting: { $0.code == .halted && $0.foundVersion == 3 && $0.supportedVersion == 1 }) { remote, good in
            try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: envelope(id: "x", title: "x", modelVersion: 3))]), on: good)
        }
    }

    @Test func aRecordThatIsNotJSONIsRefused() async throws {
        try await expectRefused(expecting: Self.rejected("not valid JSON")) { remote, good in
            try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: "{\"id\": \"x\", oops")]), on: good)
        }
    }

    @Test func duplicateKeysAreRefused() async throws {
        try await expectRefused(expecting: Self.rejected("not valid JSON")) { remote, good in
            let text = "{\n  \"id\": \"x\",\n  \"id\": \"y\",\n  \"modelVersion\": 1,\n  \"record\": {}\n}\n"
            return try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: text)]), on: good)
        }
    }

    @Test(arguments: [false, true]) func jsonNotInCanonicalFormIsRefused(overGit: Bool) async throws {
        try await expectRefused(expecting: Self.rejected("canonical"), overGit: overGit) { remote, good in
            let compact = #"{"id":"x","modelVersion":1,"record":{"id":"x","title":"x"}}"#
            return try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: compact)]), on: good)
        }
    }

    /// Over git, the blob passes the check made while it arrives (it is a good record, of
    /// `y`): the walk holds it to its path.
    @Test(arguments: [false, true]) func aPhantomRecordUnderAnotherIdsPathIsRefused(overGit: Bool) async throws {
        try await expectRefused(expecting: Self.rejected("holds record 'y'"), overGit: overGit) { remote, good in
            try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: envelope(id: "y", title: "phantom"))]), on: good)
        }
    }

    @Test func twoPathsClaimingOneIdAreRefused() async throws {
        try await expectRefused(expecting: Self.rejected("holds record 'x'")) { remote, good in
            try await remote.commit(tree: remote.recordsTree([
                remote.recordFile(id: "x", content: envelope(id: "x", title: "one")),
                remote.recordFile(id: "z", content: envelope(id: "x", title: "two")),
            ]), on: good)
        }
    }

    /// The envelope's id gives the path, the record's own id is what the app sees: they must
    /// agree, or the record would be listed under one id and unreachable by it.
    @Test func aRecordWhoseOwnIdDiffersFromItsEnvelopeIsRefused() async throws {
        try await expectRefused(expecting: Self.rejected("whose own id is 'y'")) { remote, good in
            try await remote.commit(
                tree: remote.recordsTree([remote.recordFile(id: "x", content: envelope(id: "x", title: "phantom", recordID: "y"))]),
                on: good)
        }
    }

    /// A record's `modelVersion` is a model version, as the commit's trailer holds one, or the
    /// record is refused: never read as the commit's version instead.
    @Test(arguments: ["99999999999999999999", "1000000000", "0", "-1", "1.5", #""1""#, "null", "[1]"])
    func aRecordModelVersionOutOfRangeIsRefused(_ version: String) async throws {
        try await expectRefused(expecting: Self.rejected("not a model version")) { remote, good in
            let text = #"{"id":"x","modelVersion":\#(version),"record":{"id":"x","title":"x"}}"#
            let content = String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
            return try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: content)]), on: good)
        }
    }

    @Test func aSymbolicLinkAtARecordPathIsRefused() async throws {
        try await expectRefused(expecting: Self.rejected("plain files")) { remote, good in
            try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: "/etc/passwd", mode: "120000")]), on: good)
        }
    }

    @Test func aSubmoduleAtARecordPathIsRefused() async throws {
        try await expectRefused(expecting: Self.rejected("plain files")) { remote, good in
            let path = RecordPath(id: "x")
            return try await remote.commit(tree: remote.recordsTree([(path.shards, path.fileName, "160000", "commit", good)]), on: good)
        }
    }

    @Test(arguments: ["..", ".git", "README"])
    func anEntryBesideRecordsIsRefused(_ name: String) async throws {
        try await expectRefused(expecting: Self.rejected("holds only records/")) { remote, good in
            let records = try await remote.recordsTree([remote.recordFile(id: "x", content: envelope(id: "x", title: "x"))])
            let entries = try await git("--git-dir", remote.path, "ls-tree", records).stdout
            let parts = entries.split(separator: "\t")
            let recordsID = parts[0].split(separator: " ")[2]
            let extra = try await remote.blob("hello")
            return try await remote.commit(tree: remote.tree([
                ("100644", "blob", extra, name), ("040000", "tree", String(recordsID), "records"),
            ].sorted { $0.name < $1.name }), on: good)
        }
    }

    @Test func aShardFolderWithAnotherNameIsRefused() async throws {
        try await expectRefused(expecting: Self.rejected("two lowercase hexadecimal digits")) { remote, good in
            let file = try await remote.recordFile(id: "x", content: envelope(id: "x", title: "x"))
            return try await remote.commit(tree: remote.recordsTree([([".git", file.shards[1]], file.name, file.mode, file.type, file.id)]), on: good)
        }
    }

    @Test func aRecordOverTheSizeLimitIsRefused() async throws {
        var options = StoreOptions()
        options.maximumRecordSize = 500
        try await expectRefused(expecting: Self.rejected("over the limit"), options: options) { remote, good in
            let big = try envelope(id: "x", title: String(repeating: "a", count: 2_000))
            return try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: big)]), on: good)
        }
    }

    @Test(arguments: [
        "Model-Version: 1\nModel-Version: 3\nFormat-Version: 1\n",
        "Model-Version: 1\n",
        "Model-Version: 1\nFormat-Version: 1\nLamport: -1\n",
        "Model-Version: 1\nFormat-Version: 1\nLamport: 9223372036854775807\n",
        "Model-Version: +1\nFormat-Version: 1\n",
        "Model-Version: 1\nFormat-Version: 1\nClock: tomorrow\n",
        "Model-Version: 1\nFormat-Version: 1\nReplica: a\nReplica: b\n",
    ])
    func ambiguousOrOutOfRangeTrailersAreRefused(_ trailers: String) async throws {
        try await expectRefused(expecting: { error in
            guard let rejected = error.storeError, rejected.code == .rejectedCommit else { return false }
            return rejected.path == ""
        }) { remote, good in
            try await remote.commit(tree: remote.recordsTree([remote.recordFile(id: "x", content: envelope(id: "x", title: "x"))]), on: good, trailers: trailers)
        }
    }

    @Test func aValidCommitFromAPeerIsTaken() async throws {
        let lab = try await SyncLab()
        let (store, exchange): (RecordStore<Task2>, Exchange) = try lab.recordReplica("store")
        try await store.save(Task2(id: "good", title: "good"))
        try await exchange.sync()
        let remote = CraftedRemote(path: lab.remotePath)
        let good = try await remote.main()
        let tree = try await remote.recordsTree([
            remote.recordFile(id: "good", content: envelope(id: "good", title: "good")),
            remote.recordFile(id: "peer", content: envelope(id: "peer", title: "from a peer")),
        ])
        try await remote.setMain(try await remote.commit(tree: tree, on: good))
        try await exchange.sync()
        #expect(try await store.record("peer")?.title == "from a peer")
    }
}
