// The first-sync table: a new replica's first sync from a remote, in a process of its own so
// its peak memory is its own, beside `git clone --bare` of the same repository from the same
// server, run alternately. Three remotes:
//
// - records: a store of N records, imported in the library's batches and pushed by a first sync;
// - history: N one-record commits of small data (1,000 records), written by `git fast-import`
//   with the stamps a writer gives them;
// - checkpoint: the same history behind a checkpoint (a root commit whose tree is the tree of
//   the commit ten below the head, FORMAT.md's checkpoint trailers), the ten commits after it
//   replayed on it, the old history kept under an archive ref a first sync does not fetch.
import BenchmarkSupport
import ForkStore
import ForkStoreExchange
import ForkStoreQueries
import ForkStoreTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The child half of the first-sync table: a new replica at `path` syncs once from `url`,
/// its events watched as an app that shows progress watches them, and must then hold
/// `count` records.
func firstSyncChild(path: String, url: String, count: Int) async throws {
    let store = try await RecordStore<Item>.create(at: path)
    let exchange = Exchange(store: store, remote: try Remote(url))
    let events = exchange.events()
    let watcher = Task { for await _ in events {} }
    defer { watcher.cancel() }
    _ = try await exchange.sync()
    let received = try await store.count()
    guard received == count else { throw BenchmarkFailure(reason: "the new replica holds \(received) records, not \(count)") }
}

/// The record of the first-screen child: the benchmark's record, indexed by title and count.
extension Item: IndexedRecord {
    public static let indexedFields: [IndexedField<Item>] = [.field("title", \.title), .field("count", \.count)]
}

/// The first-screen half: as an app opening on a new device, a new replica at `path` shows its
/// (empty) first screen, a query of 20 records by title, then syncs once from `url`, then
/// shows the first screen again, which must hold 20 of the `count` records it received.
func firstScreenChild(path: String, url: String, count: Int) async throws {
    let store = try await RecordStore<Item>.create(at: path)
    let firstScreen = RecordQuery<Item>().sorted(by: \.title).limit(20)
    _ = try await store.query(firstScreen)
    let exchange = Exchange(records: store, remote: try Remote(url))
    let events = exchange.events()
    let watcher = Task { for await _ in events {} }
    defer { watcher.cancel() }
    _ = try await exchange.sync()
    let shown = try await store.query(firstScreen).count
    guard shown == min(20, count) else { throw BenchmarkFailure(reason: "the first screen shows \(shown) records, not \(min(20, count))") }
}

struct FirstSyncRow {
    var scenario: String, records: Int, commits: Int, transport: String
    var sync: [TreeRun] = [], screen: [TreeRun] = [], clone: [TreeRun] = []
}

/// A program's run to its end: its wall time, and the peak resident memory of its process and
/// the processes it started (`git clone` runs `git index-pack` beside itself), in MB.
struct TreeRun {
    var status: Int32, seconds: Double, peakMB: Double, stderr: String
}

/// Runs a program on a thread of its own, reading every 2 ms the resident memory of it and
/// its descendants from `/proc`; the peak is the highest sum seen, or the program's own
/// high-water mark when that is higher.
func measureTree(_ executable: String, _ arguments: [String]) async throws -> TreeRun {
    try await onOwnThread {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("tree-run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let start = ContinuousClock.now
        guard posix_spawn(&child, executable, &actions, nil, argv, environ) == 0 else { throw POSIXError(.ENOENT) }
        func field(_ name: String, of pid: String) -> Int {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
        }
        func tree(_ pid: String) -> [String] {
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            return [pid] + children.split(separator: " ").flatMap { tree(String($0)) }
        }
        var status: Int32 = 0
        var peakKB = 0
        while waitpid(child, &status, WNOHANG) == 0 {
            let sum = tree(String(child)).reduce(0) { $0 + field("VmRSS:", of: $1) }
            peakKB = max(peakKB, sum, field("VmHWM:", of: String(child)))
            usleep(2_000)
        }
        let elapsed = ContinuousClock.now - start
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return TreeRun(
            status: status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, peakMB: Double(peakKB) / 1024,
            stderr: stderr)
    }
}

/// A remote to sync from: its name in the served folder, how many records its head holds
/// and how many commits its `main` has.
struct FirstSyncRemote {
    var name: String, records: Int, commits: Int
}

/// Writes `commits` commits to `repository`'s `main` with `git fast-import`: the first adds
/// `records` records, each later one saves a new revision of one of them. Messages carry the
/// stamps and record count a writer gives them.
func writeHistory(to repository: String, records: Int, commits: Int, folder: TemporaryFolder) async throws {
    let streamPath = folder.child("history.stream")
    _ = FileManager.default.createFile(atPath: streamPath, contents: nil)
    guard let stream = FileHandle(forWritingAtPath: streamPath) else { throw BenchmarkFailure(reason: "cannot write \(streamPath)") }
    func envelope(_ item: Item) throws -> String {
        let text = #"{"id":"\#(item.id)","modelVersion":1,"record":\#(String(decoding: try JSONEncoder().encode(item), as: UTF8.self))}"#
        return String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
    }
    let start = 1_700_000_000_000
    var text = ""
    for index in 0..<commits {
        let message = "Save\n\nModel-Version: 1\nFormat-Version: 1\nLamport: \(index + 1)\nClock: \(start + index)-0\nReplica: 00000000000000aa\nRecord-Count: \(records)\n"
        text += "commit refs/heads/main\nmark :\(index + 1)\ncommitter ForkStore <forkstore@localhost> \((start + index) / 1_000) +0000\n"
        text += "data \(message.utf8.count)\n\(message)"
        if index > 0 { text += "from :\(index)\n" }
        let items = index == 0 ? (0..<records).map { Item.make($0) } : [Item.make(index % records, revision: index)]
        for item in items {
            let bytes = try envelope(item)
            text += "M 100644 inline \(RecordPath(id: item.id))\ndata \(bytes.utf8.count)\n\(bytes)\n"
        }
        text += "\n"
        if text.utf8.count > 1 << 20 {
            stream.write(Data(text.utf8))
            text = ""
        }
    }
    stream.write(Data(text.utf8))
    try stream.close()
    let result = try await runShell("git --git-dir '\(repository)' fast-import --quiet < '\(streamPath)'")
    guard result.status == 0 else { throw BenchmarkFailure(reason: "git fast-import: \(result.stderr)") }
    try FileManager.default.removeItem(atPath: streamPath)
}

/// Puts `main` of `repository` behind a checkpoint of the commit `kept` first-parent steps
/// below its head: a root commit of that commit's tree whose message carries its stamps, its
/// record count and `Checkpoint-Of`, then the `kept` commits after it replayed on it with
/// their trees and messages. The old head stays under the archive ref.
func checkpoint(_ repository: String, keeping kept: Int) async throws {
    func run(_ arguments: String...) async throws -> String {
        let result = try await git(["--git-dir", repository] + arguments)
        guard result.status == 0 else { throw BenchmarkFailure(reason: "git \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let oldHead = try await run("rev-parse", "main")
    let horizon = try await run("rev-parse", "main~\(kept)")
    let stamps = try await run("log", "-1", "--format=%(trailers:only,unfold)", horizon)
    let identity = [
        "GIT_AUTHOR_NAME": "ForkStore", "GIT_AUTHOR_EMAIL": "forkstore@localhost",
        "GIT_COMMITTER_NAME": "ForkStore", "GIT_COMMITTER_EMAIL": "forkstore@localhost",
    ]
    let date = try await run("log", "-1", "--format=%cd", "--date=raw", horizon)
    var dated = identity
    dated["GIT_AUTHOR_DATE"] = date
    dated["GIT_COMMITTER_DATE"] = date
    let message = "Checkpoint of \(horizon)\n\n\(stamps)\nCheckpoint-Of: \(horizon)\n"
    func commitTree(_ tree: String, parent: String?, message: String, environment: [String: String]) async throws -> String {
        let parents = parent.map { ["-p", $0] } ?? []
        let result = try await git(["--git-dir", repository, "commit-tree", tree] + parents, environment: environment, input: message)
        guard result.status == 0 else { throw BenchmarkFailure(reason: "git commit-tree: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    var head = try await commitTree(try await run("rev-parse", "\(horizon)^{tree}"), parent: nil, message: message, environment: dated)
    let replayed = try await run("rev-list", "--reverse", "--first-parent", "\(horizon)..\(oldHead)")
    for commit in replayed.split(separator: "\n").map(String.init) {
        var environment = identity
        environment["GIT_COMMITTER_DATE"] = try await run("log", "-1", "--format=%cd", "--date=raw", commit)
        environment["GIT_AUTHOR_DATE"] = environment["GIT_COMMITTER_DATE"]
        let text = try await run("log", "-1", "--format=%B", commit) + "\n"
        head = try await commitTree(try await run("rev-parse", "\(commit)^{tree}"), parent: head, message: text, environment: environment)
    }
    _ = try await run("update-ref", "refs/forkstore/archive/\(head)", oldHead)
    _ = try await run("update-ref", "refs/heads/main", head, oldHead)
}

/// Runs a shell command line on a thread of its own.
func runShell(_ line: String) async throws -> (status: Int32, stderr: String) {
    try await onOwnThread {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }
}

/// The remotes of the first-sync table at one size, made in `folder`.
func makeFirstSyncRemotes(size: Int, folder: TemporaryFolder) async throws -> [(scenario: String, remote: FirstSyncRemote)] {
    var remotes: [(String, FirstSyncRemote)] = []
    // Records: what a store's first sync pushes.
    let source = try await RecordStore<Item>.create(at: folder.child("source"))
    var next = 0
    try await source.importRecords {
        guard next < size else { return nil }
        defer { next += 1 }
        return Item.make(next)
    }
    _ = try await git("init", "--bare", "-q", "-b", "main", folder.child("records.git"))
    _ = try await Exchange(store: source, remote: try Remote(folder.child("records.git"))).sync()
    let recordCommits = Int(try await git("--git-dir", folder.child("records.git"), "rev-list", "--count", "main").stdout
        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    remotes.append(("records", FirstSyncRemote(name: "records.git", records: size, commits: recordCommits)))
    // History: `size` commits of 1,000 records (fewer for small sizes), then behind a checkpoint.
    let records = min(1_000, size)
    for name in ["history.git", "checkpoint.git"] {
        _ = try await git("init", "--bare", "-q", "-b", "main", folder.child(name))
        try await writeHistory(to: folder.child(name), records: records, commits: size, folder: folder)
    }
    remotes.append(("history", FirstSyncRemote(name: "history.git", records: records, commits: size)))
    try await checkpoint(folder.child("checkpoint.git"), keeping: 10)
    remotes.append(("checkpoint", FirstSyncRemote(name: "checkpoint.git", records: records, commits: 11)))
    for name in ["records.git", "history.git", "checkpoint.git"] {
        _ = try await git("--git-dir", folder.child(name), "gc", "-q")
    }
    return remotes
}

/// The first-sync rows of one size over one transport (a path or git://; nil for the others):
/// each remote synced by a new replica and cloned by `git clone --bare`, alternately,
/// `repeats` times each.
func firstSyncRows(size: Int, transport: String, repeats: Int) async throws -> [FirstSyncRow]? {
    guard transport == "path" || transport == "git" else { return nil }
    let folder = TemporaryFolder("forkstore-first-sync-bench")
    let remotes = try await makeFirstSyncRemotes(size: size, folder: folder)
    let daemon = transport == "git" ? try await GitDaemon(basePath: folder.path) : nil
    func url(_ name: String) -> String { daemon?.url(name) ?? folder.child(name) }
    let me = CommandLine.arguments[0]
    var rows: [FirstSyncRow] = []
    for (scenario, remote) in remotes {
        var row = FirstSyncRow(scenario: scenario, records: remote.records, commits: remote.commits, transport: transport)
        for attempt in 0..<repeats {
            let replica = folder.child("replica-\(scenario)-\(attempt)"), clone = folder.child("clone-\(scenario)-\(attempt)")
            let sync = try await measureTree(me, ["--first-sync-child", replica, url(remote.name), String(remote.records)])
            guard sync.status == 0 else { throw BenchmarkFailure(reason: "first sync of \(scenario): \(sync.stderr)") }
            try? FileManager.default.removeItem(atPath: replica)
            let screen = try await measureTree(me, ["--first-screen-child", replica, url(remote.name), String(remote.records)])
            guard screen.status == 0 else { throw BenchmarkFailure(reason: "first screen of \(scenario): \(screen.stderr)") }
            let cloned = try await measureTree("/usr/bin/git", ["clone", "--bare", "-q", url(remote.name), clone])
            guard cloned.status == 0 else { throw BenchmarkFailure(reason: "git clone of \(scenario): \(cloned.stderr)") }
            row.sync.append(sync)
            row.screen.append(screen)
            row.clone.append(cloned)
            try? FileManager.default.removeItem(atPath: replica)
            try? FileManager.default.removeItem(atPath: clone)
        }
        rows.append(row)
    }
    withExtendedLifetime(daemon) {}
    return rows
}

func printFirstSyncTable(_ rows: [FirstSyncRow], repeats: Int) {
    print("")
    print("| scenario | records | commits | transport | first sync s | first screen s | git clone --bare s | time vs clone | screen vs clone | first sync peak MB | first screen peak MB | git clone peak MB |")
    print("|----------|---------|---------|-----------|--------------|----------------|--------------------|---------------|-----------------|--------------------|----------------------|-------------------|")
    for row in rows {
        let sync = median(row.sync.map(\.seconds)), screen = median(row.screen.map(\.seconds)), clone = median(row.clone.map(\.seconds))
        let syncPeak = median(row.sync.map(\.peakMB)), screenPeak = median(row.screen.map(\.peakMB)), clonePeak = median(row.clone.map(\.peakMB))
        let cells = [
            row.scenario, "\(row.records)", "\(row.commits)", row.transport, format(sync), format(screen), format(clone),
            format(sync / clone) + "x", format(screen / clone) + "x", format(syncPeak), format(screenPeak), format(clonePeak),
        ]
        print("| " + cells.joined(separator: " | ") + " |")
    }
    print("first screen: the same first sync by a replica that queried its empty store first (20 records by title), then that query again, answered from the index the sync brought to what it landed")
    print("first sync: a new replica's first sync in a process of its own (store creation included); medians of \(repeats) runs, alternating with git clone --bare of the same remote from the same server; peak: the highest resident memory of the process and its children (git clone's index-pack), sampled every 2 ms, or the process's own high-water mark")
}
