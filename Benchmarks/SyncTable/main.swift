// Sync benchmarks, printed as a table:
//
//   forkstore-sync-benchmarks [--sizes 100,10000,100000] [--rounds 21] [--transports path,git,http,https,ssh]
//                             [--tables rounds,first] [--repeats 3]
//
// For each store size and transport: two replicas of a record collection sync through one
// bare remote (a folder, `git daemon`, `git http-backend` behind lighttpd over http or https, or sshd, all on
// 127.0.0.1). Each round one replica saves one record and syncs (push-sync), the other syncs
// (pull-sync) and syncs again (no-op sync). In the same process, the same one-record commit is
// pushed and fetched with raw libgit2 calls on handles kept open, and with the git command
// line (`git push` / `git fetch`, process start included). Also the first sync of the whole
// store to an empty remote and the first sync of a new replica from it, beside `git push` of
// the same repository and `git clone` of the remote. Servers that are not installed are
// skipped, and say so. Then the first-sync table (FirstSyncTable.swift), over a path and git://.
import BenchmarkSupport
import ForkStore
import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Synchronization

struct Settings {
    var sizes = [100, 10_000, 100_000], rounds = 21, transports = ["path", "git", "http", "https", "ssh"]
    /// `rounds` (the sync table) and `first` (the first-sync table).
    var tables = ["rounds", "first"], repeats = 3

    static func parse() -> Settings {
        var settings = Settings()
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--sizes": settings.sizes = arguments.next()?.split(separator: ",").compactMap { Int($0) } ?? settings.sizes
            case "--rounds": settings.rounds = max(3, arguments.next().flatMap { Int($0) } ?? settings.rounds)
            case "--transports": settings.transports = arguments.next()?.split(separator: ",").map(String.init) ?? settings.transports
            case "--tables": settings.tables = arguments.next()?.split(separator: ",").map(String.init) ?? settings.tables
            case "--repeats": settings.repeats = max(1, arguments.next().flatMap { Int($0) } ?? settings.repeats)
            default: break
            }
        }
        return settings
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

func format(_ value: Double) -> String { value.isNaN ? "-" : String(format: value < 10 ? "%.2f" : "%.1f", value) }

func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return milliseconds(ContinuousClock.now - start)
}

func timed(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return milliseconds(ContinuousClock.now - start)
}

/// The repositories of one folder served over one transport, with what each client needs
/// to reach them.
struct Endpoint {
    var url: (_ repository: String) -> String
    var credentials: Credentials? = nil
    var trust: ServerTrust
    var rawOptions: RemoteOptions
    var cliEnvironment: [String: String]
    /// Keeps the server running.
    var server: AnyObject?

    func remote(_ repository: String) throws -> Remote {
        try Remote(url(repository), credentials: credentials, trust: trust)
    }
}

func makeEndpoint(_ transport: String, folder: TemporaryFolder) async throws -> Endpoint? {
    switch transport {
    case "path":
        return Endpoint(url: { folder.child($0) }, trust: .verify, rawOptions: RemoteOptions(), cliEnvironment: [:])
    case "git":
        let daemon = try await GitDaemon(basePath: folder.path)
        return Endpoint(url: { daemon.url($0) }, trust: .verify, rawOptions: RemoteOptions(), cliEnvironment: [:], server: daemon)
    case "http":
        guard FileManager.default.fileExists(atPath: "/usr/sbin/lighttpd") else { return nil }
        let server = try await SmartHTTPServer(repositories: folder.path, folder: folder.child("http"))
        return Endpoint(url: { server.url($0) }, trust: .verify, rawOptions: RemoteOptions(), cliEnvironment: [:], server: server)
    case "https":
        // lighttpd's TLS with a self-signed certificate, accepted as tests do.
        guard SmartHTTPServer.canServeTLS else { return nil }
        let server = try await SmartHTTPServer(repositories: folder.path, folder: folder.child("https"), tls: true)
        return Endpoint(
            url: { server.secureURL($0) ?? "" }, trust: .acceptAnyServer, rawOptions: RemoteOptions(trust: .acceptAny),
            // HTTP/1.1 as libgit2 speaks it (curl's HTTP/2 to lighttpd fails on large pushes).
            cliEnvironment: [
                "GIT_SSL_NO_VERIFY": "1", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.version", "GIT_CONFIG_VALUE_0": "HTTP/1.1",
            ], server: server)
    case "ssh":
        guard FileManager.default.fileExists(atPath: "/usr/sbin/sshd") else { return nil }
        let ssh = folder.child("ssh")
        try FileManager.default.createDirectory(atPath: ssh, withIntermediateDirectories: true)
        let server = try await SSHServer(folder: ssh)
        let raw = RemoteOptions(
            credential: .sshKey(username: server.user, publicKeyPath: nil, privateKeyPath: server.clientKey, passphrase: nil),
            trust: .acceptAny)
        let command = "ssh -i \(server.clientKey) -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
        return Endpoint(
            url: { server.url(folder.child($0)) }, credentials: .sshKey(username: server.user, privateKey: server.clientKey),
            trust: .pinnedHostKey(fingerprint: server.hostKeyFingerprint), rawOptions: raw,
            cliEnvironment: ["GIT_SSH_COMMAND": command], server: server)
    default:
        return nil
    }
}

/// Runs git in `directory`; its wall time in milliseconds.
func timedGit(_ environment: [String: String], _ arguments: String...) throws -> Double {
    try timed {
        let result = try gitBlocking(arguments, environment: environment)
        guard result.status == 0 else { throw BenchmarkFailure(reason: "git \(arguments.joined(separator: " ")): \(result.stderr)") }
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

struct Row {
    var size: Int, transport: String
    var pushSync = [Double](), pullSync = [Double](), noopSync = [Double]()
    var rawPush = [Double](), rawFetch = [Double](), gitPush = [Double](), gitFetch = [Double]()
    var firstPush = Double.nan, firstFetch = Double.nan, gitFirstPush = Double.nan, gitClone = Double.nan
}

func run(size: Int, transport: String, rounds: Int) async throws -> Row? {
    let folder = TemporaryFolder("forkstore-sync-bench")
    for name in ["remote.git", "cli-remote.git"] {
        _ = try await git("init", "--bare", "-q", "-b", "main", folder.child(name))
        _ = try await git("--git-dir", folder.child(name), "config", "http.receivepack", "true")
        _ = try await git("--git-dir", folder.child(name), "config", "receive.autogc", "false")
    }
    guard let endpoint = try await makeEndpoint(transport, folder: folder) else { return nil }
    let url = endpoint.url("remote.git"), cliURL = endpoint.url("cli-remote.git")
    var row = Row(size: size, transport: transport)
    let first = try await RecordStore<Item>.create(at: folder.child("first"))
    let next = Mutex(0)
    try await first.importRecords {
        next.withLock { next -> Item? in
            guard next < size else { return nil }
            defer { next += 1 }
            return Item.make(next)
        }
    }
    let firstExchange = Exchange(store: first, remote: try endpoint.remote("remote.git"))
    row.firstPush = try await timed { _ = try await firstExchange.sync() }
    let second = try await RecordStore<Item>.create(at: folder.child("second"))
    let secondExchange = Exchange(store: second, remote: try endpoint.remote("remote.git"))
    row.firstFetch = try await timed { _ = try await secondExchange.sync() }
    let received = try await second.count()
    guard received == size else { throw BenchmarkFailure(reason: "the second replica holds \(received) records") }

    for round in 0..<rounds {
        try await first.save(Item.make((round * 7_919) % size, revision: round + 1))
        row.pushSync.append(try await timed { _ = try await firstExchange.sync() })
        row.pullSync.append(try await timed { _ = try await secondExchange.sync() })
        row.noopSync.append(try await timed { _ = try await secondExchange.sync() })
    }

    // Raw libgit2 on kept handles, through the same remote and transport.
    let signature = Signature(name: "bench", email: "bench@localhost")
    _ = try await git("clone", "--bare", "-q", url, folder.child("raw-pusher"), environment: endpoint.cliEnvironment)
    _ = try await git("clone", "--bare", "-q", url, folder.child("raw-fetcher"), environment: endpoint.cliEnvironment)
    let pusher = try Repository.openBare(at: folder.child("raw-pusher"))
    let fetcher = try Repository.openBare(at: folder.child("raw-fetcher"))
    for round in 0..<rounds {
        try rawWrite(pusher, Item.make((round * 104_729) % size, revision: 1_000 + round), signature: signature)
        row.rawPush.append(try timed { _ = try pusher.push(to: url, refspecs: ["refs/heads/main:refs/heads/main"], options: endpoint.rawOptions) })
        row.rawFetch.append(try timed { try fetcher.fetch(from: url, refspecs: ["+refs/heads/main:refs/heads/main"], options: endpoint.rawOptions) })
    }

    // The git command line: the first store's repository pushed whole to an empty remote, a
    // clone of it, then one-record commits pushed from a working clone and fetched by another.
    let environment = endpoint.cliEnvironment
    row.gitFirstPush = try timedGit(environment, "--git-dir", first.path, "push", "-q", cliURL, "main:main")
    row.gitClone = try timedGit(environment, "clone", "-q", "--bare", cliURL, folder.child("cli-clone"))
    let work = folder.child("cli-work")
    _ = try await git("clone", "-q", cliURL, work, environment: environment)
    for round in 0..<rounds {
        let item = Item.make((round * 15_485_863) % size, revision: 2_000 + round)
        let path = work + "/" + RecordPath(id: item.id).description
        try JSONEncoder().encode(item).write(to: URL(fileURLWithPath: path))
        _ = try await git("-C", work, "commit", "-q", "-a", "-m", "one record")
        row.gitPush.append(try timedGit(environment, "-C", work, "push", "-q", "origin", "HEAD:main"))
        row.gitFetch.append(try timedGit(environment, "--git-dir", folder.child("cli-clone"), "fetch", "-q", cliURL, "+main:main"))
    }
    withExtendedLifetime(endpoint.server) {}
    return row
}

if CommandLine.arguments.count == 5, ["--first-sync-child", "--first-screen-child"].contains(CommandLine.arguments[1]),
    let count = Int(CommandLine.arguments[4])
{
    do {
        if CommandLine.arguments[1] == "--first-screen-child" {
            try await firstScreenChild(path: CommandLine.arguments[2], url: CommandLine.arguments[3], count: count)
        } else {
            try await firstSyncChild(path: CommandLine.arguments[2], url: CommandLine.arguments[3], count: count)
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

let settings = Settings.parse()
var rows: [Row] = []
var skipped: [String] = []
for size in settings.sizes where settings.tables.contains("rounds") {
    for transport in settings.transports {
        do {
            if let row = try await run(size: size, transport: transport, rounds: settings.rounds) {
                rows.append(row)
            } else {
                skipped.append(transport)
            }
        } catch {
            print("\(transport) at \(size) records failed: \(error)")
            exit(1)
        }
    }
}

var firstRows: [FirstSyncRow] = []
for size in settings.sizes where settings.tables.contains("first") {
    for transport in settings.transports {
        do {
            firstRows += try await firstSyncRows(size: size, transport: transport, repeats: settings.repeats) ?? []
        } catch {
            print("the first sync at \(size) over \(transport) failed: \(error)")
            exit(1)
        }
    }
}

if settings.tables.contains("rounds") { printSyncTable(rows, skipped: skipped, rounds: settings.rounds) }
if settings.tables.contains("first") { printFirstSyncTable(firstRows, repeats: settings.repeats) }

func printSyncTable(_ rows: [Row], skipped: [String], rounds: Int) {
    print("| records | transport | push-sync ms | pull-sync ms | no-op sync ms | raw push ms | raw fetch ms | push-sync vs raw push+fetch | git push ms | git fetch ms | first sync s | first fetch s | git push (whole) s | git clone s |")
    print("|---------|-----------|--------------|--------------|---------------|-------------|--------------|-----------------------------|-------------|--------------|--------------|---------------|--------------------|-------------|")
    for row in rows {
        let push = median(row.pushSync), raw = median(row.rawPush) + median(row.rawFetch)
        let cells = [
            "\(row.size)", row.transport, format(push), format(median(row.pullSync)), format(median(row.noopSync)),
            format(median(row.rawPush)), format(median(row.rawFetch)), format(push / raw) + "x",
            format(median(row.gitPush)), format(median(row.gitFetch)),
            format(row.firstPush / 1e3), format(row.firstFetch / 1e3), format(row.gitFirstPush / 1e3), format(row.gitClone / 1e3),
        ]
        print("| " + cells.joined(separator: " | ") + " |")
    }
    print("medians of \(rounds) rounds; one new one-record commit per round; raw: libgit2 push and fetch of the same kind of commit on handles kept open; git: the command line, process start included")
    if !skipped.isEmpty { print("skipped (server not installed): \(Set(skipped).sorted().joined(separator: ", "))") }
}
