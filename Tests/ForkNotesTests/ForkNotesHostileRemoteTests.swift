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

    init(_ transport: String, folder: String) throws {
        self.transport = transport
        repositories = folder + "/repos"
        try FileManager.default.createDirectory(atPath: repositories, withIntermediateDirectories: true)
        daemon = transport == "git" ? try GitDaemon(basePath: repositories) : nil
        http = transport == "http" ? try SmartHTTPServer(repositories: repositories, folder: folder + "/http") : nil
        let sshFolder = folder + "/ssh"
        if transport == "ssh" { try FileManager.default.createDirectory(atPath: sshFolder, withIntermediateDirectories: true) }
        ssh = transport == "ssh" ? try SSHServer(folder: sshFolder) : nil
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
    func remoteWithANote(_ name: String, cli: ForkNotes) throws -> String {
        let remote = repositories + "/" + name
        try git("init", "--bare", "-q", "-b", "main", remote)
        let peer = cli.folder.child("peer-\(name)")
        try cli.ok("init", "--store", peer, "--remote", remote)
        try cli.ok("add", "--store", peer, "--title", "from a peer")
        try cli.ok("sync", "--store", peer)
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
    /// each one from its headers, in well under two seconds and within 64 MB of a good sync's
    /// memory, whatever the transport; the store stays as it was.
    @Test(arguments: ["path", "git", "http", "ssh"])
    func aBombIsRefusedFromItsHeaders(transport: String) async throws {
        let cli = ForkNotes()
        let served = try ServedRemotes(transport, folder: cli.folder.child(transport))
        let forknotes = productsFolder() + "/forknotes"
        for bomb in Bomb.allCases where bomb != .hiddenBase || transport == "path" {
            let remote = try served.remoteWithANote("\(bomb).git", cli: cli)
            let store = cli.folder.child("store-\(bomb)")
            try cli.ok("init", "--store", store, "--remote", served.url("\(bomb).git"))
            let good = try await MeasuredRun.run(forknotes, ["sync", "--store", store], limit: 60, environment: served.environment)
            #expect(good.status == 0, "\(good.stderr)")
            let head = try git("--git-dir", store, "rev-parse", "main").stdout
            try bomb.plant(in: remote, size: Self.size(of: bomb), modelVersion: 3, folder: cli.folder.path)

            let refused = try await MeasuredRun.run(forknotes, ["sync", "--store", store], limit: 60, environment: served.environment)
            print(
                "\(bomb) bomb of \(Self.size(of: bomb) >> 20) MB over \(transport): refused in \(String(format: "%.2f", refused.seconds)) s at",
                "\(refused.peakKB >> 10) MB (a good sync: \(good.peakKB >> 10) MB)")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("over the largest object a sync takes"), "\(refused.stderr)")
            #expect(refused.seconds < 2, "\(bomb) over \(transport): \(refused.seconds) s")
            #expect(!refused.timedOut && refused.peakKB < good.peakKB + (Self.memoryAllowance >> 10), "\(bomb) over \(transport): \(refused.peakKB >> 10) MB")
            #expect(try git("--git-dir", store, "rev-parse", "main").stdout == head)
            #expect(try git("--git-dir", store, "fsck", "--strict").status == 0)
            #expect(transferSize(of: store) < 1 << 20, "the transfer repository kept \(transferSize(of: store)) bytes")
            #expect(try cli.ok("list", "--store", store).contains("from a peer"))
        }
    }
}
