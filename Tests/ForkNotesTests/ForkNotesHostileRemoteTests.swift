import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// A remote that `forknotes sync` reaches over one transport: the bare repositories of one
/// folder, by path or served on 127.0.0.1, and what the CLI needs in its environment for it.
private final class ServedRemotes {
    let repositories: String
    let transport: String
    private let daemon: GitDaemon?
    private let http: SmartHTTPServer?
    private let ssh: SSHServer?

    init(_ transport: String, folder: String) async throws {
        self.transport = transport
        repositories = folder + "/repos"
        try FileManager.default.createDirectory(atPath: repositories, withIntermediateDirectories: true)
        daemon = transport == "git" ? try await GitDaemon(basePath: repositories) : nil
        http = transport == "http" ? try await SmartHTTPServer(repositories: repositories, folder: folder + "/http") : nil
        let sshFolder = folder + "/ssh"
        if transport == "ssh" { try FileManager.default.createDirectory(atPath: sshFolder, withIntermediateDirectories: true) }
        ssh = transport == "ssh" ? try await SSHServer(folder: sshFolder) : nil
    }

    /// Where the CLI reaches repository `name` of the folder.
    func url(_ name: String) -> String {
        daemon?.url(name) ?? http?.url(name) ?? ssh?.url(repositories + "/" + name) ?? repositories + "/" + name
    }

    var environment: [String: String] {
        guard let ssh else { return [:] }
        return ["FORKNOTES_SSH_KEY": ssh.clientKey, "FORKNOTES_USERNAME": ssh.user, "FORKNOTES_HOST_KEY": ssh.hostKeyFingerprint]
    }

    /// A bare repository of the folder holding a peer's note, pushed by the CLI over the path.
    func remoteWithANote(_ name: String, cli: ForkNotes) async throws -> String {
        let remote = repositories + "/" + name
        try await git("init", "--bare", "-q", "-b", "main", remote)
        let peer = cli.folder.child("peer-\(name)")
        try await cli.ok("init", "--store", peer, "--remote", remote)
        try await cli.ok("add", "--store", peer, "--title", "from a peer")
        try await cli.ok("sync", "--store", peer)
        return remote
    }
}

/// What a store's transfer repository takes on disk, in bytes.
private func transferSize(of store: String) -> Int {
    let folder = store + "/forkstore-transfer"
    let files = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
    return files.reduce(0) { total, file in
        total + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + file))?[.size] as? Int ?? 0)
    }
}

@Suite("forknotes sync against hostile remotes: bounded cost, bounded quarantine")
struct ForkNotesHostileRemoteTests {
    /// The size of each bomb once taken in: far above the memory a refusal may cost.
    static func size(of bomb: Bomb) -> Int { bomb == .record || bomb == .hiddenBase ? 64 << 20 : 128 << 20 }
    /// What a sync that refuses a bomb may take beyond what a good sync of the store takes.
    static let memoryAllowance = 64 << 20

    /// A delta bomb, a blob bomb and a record too large, each planted on top of a peer's
    /// note (and from a path remote, a small record stored on a huge base): the sync refuses
    /// each one from its headers, within two seconds and 64 MB of a good sync's time and
    /// memory, whatever the transport; the store stays as it was.
    @Test(arguments: ["path", "git", "http", "ssh"])
    func aBombIsRefusedFromItsHeaders(transport: String) async throws {
        let cli = ForkNotes()
        let served = try await ServedRemotes(transport, folder: cli.folder.child(transport))
        for bomb in Bomb.allCases where bomb != .hiddenBase || transport == "path" {
            let remote = try await served.remoteWithANote("\(bomb).git", cli: cli)
            try await expectRefused(bomb, plantedIn: remote, reachedAt: served.url("\(bomb).git"), over: transport, cli: cli, environment: served.environment)
        }
    }

    /// A path remote that is a repository with a working folder (a clone someone works in) is
    /// read as a bare one is: a bomb in its `.git` is refused from its headers too, where
    /// libgit2's local transport would read it whole.
    @Test func aBombInARepositoryWithAWorkingFolderIsRefusedFromItsHeaders() async throws {
        let cli = ForkNotes()
        let served = try await ServedRemotes("path", folder: cli.folder.child("path"))
        for bomb in Bomb.allCases {
            let working = cli.folder.child("working-\(bomb)")
            try await git("clone", "-q", "-b", "main", try served.remoteWithANote("\(bomb).git", cli: cli), working)
            try await expectRefused(bomb, plantedIn: working + "/.git", reachedAt: working, over: "a working folder's path", cli: cli)
        }
    }

    /// Syncs a new store from `url` (a peer's note), plants `bomb` in `remote` (its git
    /// directory), and checks that the next sync refuses it from its headers, in well under
    /// two seconds and within 64 MB of the good sync's memory, leaving the store as it was.
    private func expectRefused(
        _ bomb: Bomb, plantedIn remote: String, reachedAt url: String, over transport: String, cli: ForkNotes,
        environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let forknotes = productsFolder() + "/forknotes"
        let store = cli.folder.child("store-\(bomb)-\(UUID().uuidString.prefix(4))")
        try await cli.ok("init", "--store", store, "--remote", url)
        let good = try await MeasuredRun.run(forknotes, ["sync", "--store", store], limit: 60, environment: environment)
        #expect(good.status == 0, "\(good.stderr)", sourceLocation: sourceLocation)
        let head = try await git("--git-dir", store, "rev-parse", "main").stdout
        try await bomb.plant(in: remote, size: Self.size(of: bomb), modelVersion: 3, folder: cli.folder.path)

        var refused = try await MeasuredRun.run(forknotes, ["sync", "--store", store], limit: 60, environment: environment)
        // Beside other work one run can stall for seconds (seen: 3.0 s against a good sync's
        // 0.55 s, where alone it takes 0.4 s): a refusal that ran long is timed once more, and
        // the faster run counts. One that read the bomb whole would be slow both times.
        if refused.seconds >= good.seconds + 2 {
            let again = try await MeasuredRun.run(forknotes, ["sync", "--store", store], limit: 60, environment: environment)
            if again.seconds < refused.seconds { refused = again }
        }
        print(
            "\(bomb) bomb of \(Self.size(of: bomb) >> 20) MB over \(transport): refused in \(String(format: "%.2f", refused.seconds)) s at",
            "\(refused.peakKB >> 10) MB (a good sync: \(good.peakKB >> 10) MB)")
        #expect(refused.status == 1, sourceLocation: sourceLocation)
        #expect(refused.stderr.contains("over the largest object a sync takes"), "\(refused.stderr)", sourceLocation: sourceLocation)
        // Within two seconds of a good sync, measured now: beside other work, a sync process
        // alone can take more than two.
        #expect(refused.seconds < good.seconds + 2, "\(bomb) over \(transport): \(refused.seconds) s; a good sync \(good.seconds) s", sourceLocation: sourceLocation)
        #expect(
            !refused.timedOut && refused.peakKB < good.peakKB + (Self.memoryAllowance >> 10), "\(bomb) over \(transport): \(refused.peakKB >> 10) MB",
            sourceLocation: sourceLocation)
        #expect(try await git("--git-dir", store, "rev-parse", "main").stdout == head, sourceLocation: sourceLocation)
        #expect(try await git("--git-dir", store, "fsck", "--strict").status == 0, sourceLocation: sourceLocation)
        #expect(transferSize(of: store) < 1 << 20, "the transfer repository kept \(transferSize(of: store)) bytes", sourceLocation: sourceLocation)
        #expect(try await cli.ok("list", "--store", store).contains("from a peer"), sourceLocation: sourceLocation)
    }

    /// Fifty syncs that each fetch a different refused commit leave the transfer repository
    /// as small as the first one did: it keeps the last refused fetch only, named by
    /// `status`, and the next sync removes it, whatever it fetches.
    @Test(arguments: ["path", "git"])
    func aQuarantineHoldsOnlyTheLastRefusedFetch(transport: String) async throws {
        let cli = ForkNotes()
        let served = try await ServedRemotes(transport, folder: cli.folder.child(transport))
        let remote = try await served.remoteWithANote("notes.git", cli: cli)
        let good = try await git("--git-dir", remote, "rev-parse", "main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await cli.ok("init", "--store", cli.store, "--remote", served.url("notes.git"))
        try await cli.ok("sync", "--store", cli.store)
        let path = RecordPath(id: "hostile")
        var random = SplitMix(state: 24)
        var sizes: [Int] = []
        var last = ""
        for _ in 0..<50 {
            // A record that is not JSON, different each time (100 KB that do not compress).
            let file = cli.folder.child("hostile")
            try Data(Array("not JSON ".utf8) + (0..<100_000).map { _ in UInt8(97 + random.next() % 26) }).write(to: URL(fileURLWithPath: file))
            let blob = try await git("--git-dir", remote, "hash-object", "-w", file).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            var tree = try await git(["--git-dir", remote, "mktree"], input: "100644 blob \(blob)\t\(path.fileName)\n").stdout
            for name in [path.shards[1], path.shards[0], RecordPath.root] {
                tree = try await git(["--git-dir", remote, "mktree"], input: "040000 tree \(tree.trimmingCharacters(in: .whitespacesAndNewlines))\t\(name)\n").stdout
            }
            last = try await git(
                "--git-dir", remote, "commit-tree", tree.trimmingCharacters(in: .whitespacesAndNewlines), "-p", good,
                "-m", "Hostile\n\nModel-Version: 3\nFormat-Version: 1\n"
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try await git("--git-dir", remote, "update-ref", "refs/heads/main", last)
            let result = try await cli("sync", "--store", cli.store, environment: served.environment)
            #expect(result.status == 1 && result.stderr.contains("not valid JSON"), "\(result.stderr)")
            sizes.append(transferSize(of: cli.store))
        }
        print("transfer repository over \(transport) after each of 50 refused fetches, KB:", sizes.map { $0 >> 10 })
        let first = try #require(sizes.first)
        #expect(sizes.allSatisfy { $0 <= first + 16 << 10 }, "it grew: \(sizes.map { $0 >> 10 }) KB")
        let status = try await cli.ok("status", "--store", cli.store)
        #expect(status.contains("quarantine:   \(last) in \(cli.store)/forkstore-transfer (refs/forkstore/quarantine)"), "\(status)")
        #expect(try await git("--git-dir", cli.store + "/forkstore-transfer", "rev-parse", "refs/forkstore/quarantine").stdout.contains(last))

        // A good commit from the peer: the sync takes it, and keeps nothing of the refused ones.
        try await git("--git-dir", remote, "update-ref", "refs/heads/main", good)
        let peer = cli.folder.child("peer-notes.git")
        try await cli.ok("add", "--store", peer, "--title", "a good one")
        try await cli.ok("sync", "--store", peer)
        try await cli.ok("sync", "--store", cli.store)
        #expect(try await cli.ok("list", "--store", cli.store).contains("a good one"))
        #expect(!(try await cli.ok("status", "--store", cli.store).contains("quarantine")))
        #expect(try await git("--git-dir", cli.store + "/forkstore-transfer", "count-objects", "-v").stdout.contains("size-pack: 0"))
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }
}
