// Asset transfer benchmarks through a real Git LFS server, printed as a table:
//
//   forkstore-asset-benchmarks [--workloads 1x1G,100x10M,1000x100K] [--rounds 3] [--tools forkstore,git-lfs,curl]
//                              [--curl-parallel 8]
//
// One giftless (waitress, 8 threads, local storage read in 1 MiB blocks rather than giftless's
// own line by line, which serves about 14 MB/s; scripts/setup.sh --test-servers makes its
// virtual environment) on 127.0.0.1. For each workload (COUNTxSIZE, sizes in binary units:
// K = 1024) the same pseudo-random files go up and come back down through each tool, in
// rounds whose tool order rotates, each tool and round with a repository of its own on the
// server (so nothing is there before an upload), emptied after its download:
//
// - ForkStore: the stress writer (release build) as a process of its own. `asset-push` adds
//   the files to a new record collection (one record each, one commit) and syncs with a bare
//   remote whose assets URL is giftless: the time is the sync's (batch requests, PUTs,
//   verify calls, and the push of the commit); `asset-fetch` syncs a new replica lazily and
//   fetches every asset in one call: the time is the fetch's (batches, GETs, hash checks).
// - git lfs: Debian's git-lfs run directly (not through `git`, so the process measured is
//   git-lfs itself), with a home of its own, `lfs.url` at giftless and `*.bin` tracked.
//   `git lfs push origin main` after the files are committed (the commit, which copies them
//   into .git/lfs/objects, is not timed); `git lfs fetch origin main` in a clone made without
//   smudging: `git lfs pull` without its checkout, so its end is the end of ForkStore's fetch,
//   verified objects in the repository's store. Its default of 8 concurrent transfers.
// - curl: the floor. The batch request is made with curl itself, untimed; then one curl
//   process moves every object with `--parallel --parallel-max N` (N: --curl-parallel, 8 like
//   git-lfs), PUTs of the files to the upload hrefs with their headers, or GETs of the
//   download hrefs into files; no verify calls, no hashing.
//
// Times are wall times: ForkStore's as its process measured them around the transfer, the
// others' of the whole process (its start included, a few milliseconds). Peak memory is the
// process's VmHWM (MeasuredRun); git-lfs's helper `git` processes are not counted. Figures
// are medians over the rounds, peaks the highest. Every run is checked: the server holds
// every object after an upload, every file is back after a download.
import Crypto
import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation

struct Workload: CustomStringConvertible {
    var count: Int, size: Int, label: String

    /// `COUNTxSIZE`, SIZE with an optional K, M or G (binary units).
    init?(_ text: Substring) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let last = parts[1].last else { return nil }
        let units: [Character: Int] = ["k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        let unit = units[last] ?? 1
        guard let number = Int(units[last] == nil ? parts[1] : parts[1].dropLast()), number > 0 else { return nil }
        self.count = count
        size = number * unit
        label = "\(count) x \(number)\(units[last] == nil ? " B" : " " + String(last).uppercased() + "iB")"
    }

    var description: String { label }
}

struct Settings {
    var workloads = ["1x1G", "100x10M", "1000x100K"].compactMap { Workload(Substring($0)) }
    var rounds = 3
    var tools = Tool.allCases
    var curlParallel = 8

    static func parse() -> Settings {
        var settings = Settings()
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--workloads":
                let parsed = arguments.next()?.split(separator: ",").compactMap(Workload.init) ?? []
                if !parsed.isEmpty { settings.workloads = parsed }
            case "--rounds": settings.rounds = max(1, arguments.next().flatMap { Int($0) } ?? settings.rounds)
            case "--tools":
                let parsed = arguments.next()?.split(separator: ",").compactMap { Tool(rawValue: String($0)) } ?? []
                if !parsed.isEmpty { settings.tools = parsed }
            case "--curl-parallel": settings.curlParallel = max(1, arguments.next().flatMap { Int($0) } ?? settings.curlParallel)
            default:
                FileHandle.standardError.write(Data("forkstore-asset-benchmarks: unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
        return settings
    }
}

enum Tool: String, CaseIterable {
    case forkstore, gitLFS = "git-lfs", curl
}

/// One direction of one run: its time and the process's peak memory.
struct Sample {
    var seconds: Double
    var peakKB: Int
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}

/// A workload's files on disk, with their oids.
struct Files {
    var folder: String
    var names: [String]
    var oids: [String]
    var size: Int

    var paths: [String] { names.map { folder + "/" + $0 } }

    static func write(_ workload: Workload, into folder: String, seed: UInt64) throws -> Files {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var names: [String] = [], oids: [String] = []
        for index in 0..<workload.count {
            let name = String(format: "asset-%05d.bin", index)
            let path = folder + "/" + name
            try writeRandomFile(path, size: workload.size, seed: seed &+ UInt64(index))
            names.append(name)
            oids.append(try sha256(of: path))
        }
        return Files(folder: folder, names: names, oids: oids, size: workload.size)
    }

    static func sha256(of path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchmarkFailure(description: "cannot read \(path)") }
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// The giftless all runs share, and what every tool needs around it.
struct Bench {
    let server: GiftlessServer
    let scratch: String
    let writer: String
    let gitLFS: String
    let curl: String
    let curlParallel: Int

    /// A run's repository on the server, with its storage folder.
    func endpoint(_ repository: String) -> String { server.endpoint(repository) }
    func storage(_ repository: String) -> String { server.storage + "/" + repository }

    /// Checks that giftless's storage holds every file of `files` for `repository`.
    func expectStored(_ files: Files, in repository: String, by tool: Tool) throws {
        for oid in files.oids {
            let path = server.storedPath(oid, repository: repository)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
            guard size == files.size else {
                throw BenchmarkFailure(description: "\(tool.rawValue): after the upload giftless holds \(size.map(String.init) ?? "nothing") at \(path)")
            }
        }
    }

    func measured(_ tool: Tool, _ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> MeasuredRun {
        let run = try await MeasuredRun.run(executable, arguments, limit: 3600, environment: environment)
        guard run.status == 0, !run.timedOut else {
            throw BenchmarkFailure(description: "\(tool.rawValue): \(arguments.prefix(3).joined(separator: " ")) exited \(run.status): \(run.stderr.suffix(2000))")
        }
        return run
    }

    // MARK: ForkStore

    func forkStore(_ files: Files, repository: String, folder: String) async throws -> (Sample, Sample) {
        let remote = folder + "/remote.git"
        try await requireGit(["init", "--bare", "-q", "-b", "main", remote])
        let quiet = ["FORKSTORE_STRESS_QUIET": "1"]
        let push = try await measured(
            .forkstore, writer, ["asset-push", folder + "/laptop", remote, files.folder, "0", endpoint(repository)], environment: quiet)
        guard push.stdout.contains("done synced \(files.names.count)\n") else {
            throw BenchmarkFailure(description: "forkstore: the push said \(push.stdout.suffix(300))")
        }
        try expectStored(files, in: repository, by: .forkstore)
        try FileManager.default.removeItem(atPath: folder + "/laptop")
        let fetch = try await measured(.forkstore, writer, ["asset-fetch", folder + "/phone", remote, "0", endpoint(repository)], environment: quiet)
        let fetched = fetch.stdout.split(separator: "\n").filter { $0.hasPrefix("done fetched ") }
        guard fetched.count == files.names.count else {
            throw BenchmarkFailure(description: "forkstore: the fetch brought \(fetched.count) files")
        }
        return (Sample(seconds: try Self.reportedSeconds(push), peakKB: push.peakKB), Sample(seconds: try Self.reportedSeconds(fetch), peakKB: fetch.peakKB))
    }

    /// The "done seconds S" line of a stress writer's output.
    static func reportedSeconds(_ run: MeasuredRun) throws -> Double {
        guard let line = run.stdout.split(separator: "\n").first(where: { $0.hasPrefix("done seconds ") }),
            let seconds = Double(line.dropFirst("done seconds ".count))
        else { throw BenchmarkFailure(description: "forkstore: no time in \(run.stdout.suffix(300))") }
        return seconds
    }

    // MARK: git lfs

    func gitLFS(_ files: Files, repository: String, folder: String) async throws -> (Sample, Sample) {
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let environment = [
            "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
        ]
        let work = folder + "/work", origin = folder + "/origin.git", clone = folder + "/clone"
        try await requireGit(["init", "--bare", "-q", "-b", "main", origin], environment: environment)
        try await requireGit(["init", "-q", "-b", "main", work], environment: environment)
        for arguments in [
            ["lfs", "install", "--local"], ["config", "lfs.url", endpoint(repository)], ["config", "lfs.locksverify", "false"],
            ["lfs", "track", "*.bin"], ["remote", "add", "origin", origin],
        ] {
            try await requireGit(["-C", work] + arguments, environment: environment)
        }
        for (name, path) in zip(files.names, files.paths) { try FileManager.default.linkItem(atPath: path, toPath: work + "/" + name) }
        try await requireGit(["-C", work, "add", "-A"], environment: environment)
        try await requireGit(["-C", work, "commit", "-q", "-m", "files"], environment: environment)
        // The files' copies in the working tree are not needed again.
        for name in files.names { try FileManager.default.removeItem(atPath: work + "/" + name) }

        let push = try await measured(.gitLFS, "/usr/bin/env", ["-C", work, gitLFS, "push", "origin", "main"], environment: environment)
        try expectStored(files, in: repository, by: .gitLFS)
        try await requireGit(["-C", work, "push", "-q", "origin", "main"], environment: environment)
        try FileManager.default.removeItem(atPath: work)

        try await requireGit(["clone", "-q", origin, clone], environment: environment.merging(["GIT_LFS_SKIP_SMUDGE": "1"]) { $1 })
        try await requireGit(["-C", clone, "config", "lfs.url", endpoint(repository)], environment: environment)
        let fetch = try await measured(.gitLFS, "/usr/bin/env", ["-C", clone, gitLFS, "fetch", "origin", "main"], environment: environment)
        for oid in files.oids {
            let path = clone + "/.git/lfs/objects/\(oid.prefix(2))/\(oid.dropFirst(2).prefix(2))/\(oid)"
            guard FileManager.default.fileExists(atPath: path) else {
                throw BenchmarkFailure(description: "git-lfs: the fetch did not bring \(oid)")
            }
        }
        return (Sample(seconds: push.seconds, peakKB: push.peakKB), Sample(seconds: fetch.seconds, peakKB: fetch.peakKB))
    }

    // MARK: curl

    func curl(_ files: Files, repository: String, folder: String) async throws -> (Sample, Sample) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let uploads = try await batch("upload", files, repository: repository, folder: folder)
        var blocks: [String] = []
        for (index, path) in files.paths.enumerated() {
            guard let action = uploads[files.oids[index]] else { throw BenchmarkFailure(description: "curl: no upload action for \(path)") }
            var block = "url = \(Self.quoted(action.href))\nupload-file = \(Self.quoted(path))\noutput = \"/dev/null\"\nfail\n"
            for header in action.headers + ["Content-Type: application/octet-stream"] { block += "header = \(Self.quoted(header))\n" }
            blocks.append(block)
        }
        var config = blocks.joined(separator: "next\n")
        try config.write(toFile: folder + "/upload.curlrc", atomically: true, encoding: .utf8)
        let put = try await measured(.curl, curl, parallel + ["-K", folder + "/upload.curlrc"])
        try expectStored(files, in: repository, by: .curl)

        let downloads = try await batch("download", files, repository: repository, folder: folder)
        let received = folder + "/received"
        try FileManager.default.createDirectory(atPath: received, withIntermediateDirectories: true)
        blocks = []
        for (index, name) in files.names.enumerated() {
            guard let action = downloads[files.oids[index]] else { throw BenchmarkFailure(description: "curl: no download action for \(name)") }
            var block = "url = \(Self.quoted(action.href))\noutput = \(Self.quoted(received + "/" + name))\nfail\n"
            for header in action.headers { block += "header = \(Self.quoted(header))\n" }
            blocks.append(block)
        }
        config = blocks.joined(separator: "next\n")
        try config.write(toFile: folder + "/download.curlrc", atomically: true, encoding: .utf8)
        let get = try await measured(.curl, curl, parallel + ["-K", folder + "/download.curlrc"])
        for name in files.names {
            let size = (try? FileManager.default.attributesOfItem(atPath: received + "/" + name)[.size] as? NSNumber)?.intValue
            guard size == files.size else { throw BenchmarkFailure(description: "curl: \(name) came back with \(size ?? -1) bytes") }
        }
        return (Sample(seconds: put.seconds, peakKB: put.peakKB), Sample(seconds: get.seconds, peakKB: get.peakKB))
    }

    var parallel: [String] { ["--silent", "--show-error", "--parallel", "--parallel-max", String(curlParallel)] }

    /// The actions of a batch request made with curl, 100 objects a request, by oid.
    func batch(_ operation: String, _ files: Files, repository: String, folder: String) async throws -> [String: (href: String, headers: [String])] {
        var actions: [String: (href: String, headers: [String])] = [:]
        for start in stride(from: 0, to: files.oids.count, by: 100) {
            let objects = files.oids[start..<min(start + 100, files.oids.count)].map { #"{"oid":"\#($0)","size":\#(files.size)}"# }
            let body = #"{"operation":"\#(operation)","transfers":["basic"],"objects":[\#(objects.joined(separator: ","))]}"#
            try body.write(toFile: folder + "/batch.json", atomically: true, encoding: .utf8)
            let answer = try await run(curl, [
                "--silent", "--show-error", "--fail", "-X", "POST", "-H", "Accept: application/vnd.git-lfs+json",
                "-H", "Content-Type: application/vnd.git-lfs+json", "--data-binary", "@" + folder + "/batch.json",
                endpoint(repository) + "/objects/batch",
            ])
            guard answer.status == 0,
                let document = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any],
                let entries = document["objects"] as? [[String: Any]]
            else { throw BenchmarkFailure(description: "curl: the \(operation) batch failed: \(answer.stderr) \(answer.stdout.prefix(300))") }
            for entry in entries {
                guard let oid = entry["oid"] as? String, let all = entry["actions"] as? [String: Any],
                    let action = all[operation] as? [String: Any], let href = action["href"] as? String
                else { continue }
                let headers = (action["header"] as? [String: String] ?? [:]).map { "\($0.key): \($0.value)" }
                actions[oid] = (href, headers)
            }
        }
        return actions
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

func requireGit(_ arguments: [String], environment: [String: String] = [:]) async throws {
    let result = try await git(arguments, environment: environment)
    guard result.status == 0 else {
        throw BenchmarkFailure(description: "git \(arguments.joined(separator: " ")): \(result.stderr)")
    }
}

func which(_ program: String) -> String? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(folder)/\(program)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func seconds(_ value: Double) -> String {
    value.isNaN ? "-" : String(format: value < 1 ? "%.3f s" : value < 10 ? "%.2f s" : "%.1f s", value)
}

// MARK: Main

let settings = Settings.parse()
guard let gitLFSPath = which("git-lfs"), let curlPath = which("curl") else {
    FileHandle.standardError.write(Data("forkstore-asset-benchmarks: git-lfs and curl are needed: run scripts/setup.sh --test-servers\n".utf8))
    exit(1)
}
let scratch = TemporaryFolder("forkstore-asset-bench")
let server: GiftlessServer
do {
    server = try await GiftlessServer(folder: scratch.child("giftless"), blockDownloads: true)
} catch {
    FileHandle.standardError.write(Data("forkstore-asset-benchmarks: \(error)\n".utf8))
    try? FileManager.default.removeItem(atPath: scratch.path)
    exit(1)
}
/// Stops the server and removes the scratch folder (gigabytes of files): a global's deinit
/// does not run when the process exits.
func cleanUp() {
    server.stop()
    try? FileManager.default.removeItem(atPath: scratch.path)
}
let bench = Bench(
    server: server, scratch: scratch.path, writer: productsFolder() + "/forkstore-stress-writer", gitLFS: gitLFSPath, curl: curlPath,
    curlParallel: settings.curlParallel)

struct Row {
    var workload: Workload
    var up: [Tool: [Sample]] = [:], down: [Tool: [Sample]] = [:]
}

var rows: [Row] = []
do {
    for (index, workload) in settings.workloads.enumerated() {
        FileHandle.standardError.write(Data("\(workload): writing the files\n".utf8))
        let files = try Files.write(workload, into: scratch.child("files-\(index)"), seed: UInt64(1_000 * (index + 1)))
        var row = Row(workload: workload)
        for round in 0..<settings.rounds {
            let tools = settings.tools
            for offset in 0..<tools.count {
                let tool = tools[(round + offset) % tools.count]
                let repository = "bench/\(tool.rawValue)-\(index)-\(round)"
                let folder = scratch.child("run-\(tool.rawValue)-\(index)-\(round)")
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let (up, down) =
                    switch tool {
                    case .forkstore: try await bench.forkStore(files, repository: repository, folder: folder)
                    case .gitLFS: try await bench.gitLFS(files, repository: repository, folder: folder)
                    case .curl: try await bench.curl(files, repository: repository, folder: folder)
                    }
                row.up[tool, default: []].append(up)
                row.down[tool, default: []].append(down)
                FileHandle.standardError.write(Data(
                    "\(workload) round \(round + 1) \(tool.rawValue): up \(seconds(up.seconds)) \(up.peakKB / 1024) MB, down \(seconds(down.seconds)) \(down.peakKB / 1024) MB\n".utf8))
                try FileManager.default.removeItem(atPath: folder)
                try FileManager.default.removeItem(atPath: bench.storage(repository))
            }
        }
        try FileManager.default.removeItem(atPath: files.folder)
        rows.append(row)
    }
} catch {
    FileHandle.standardError.write(Data("forkstore-asset-benchmarks: \(error)\n".utf8))
    cleanUp()
    exit(1)
}
cleanUp()

let names: [Tool: String] = [.forkstore: "ForkStore", .gitLFS: "git lfs", .curl: "curl (--parallel \(settings.curlParallel))"]
var header = ["workload", "way"] + settings.tools.map { names[$0] ?? $0.rawValue }
let ratios: [(Tool, Tool)] = [(.forkstore, .curl), (.forkstore, .gitLFS)].filter { settings.tools.contains($0.0) && settings.tools.contains($0.1) }
header += ratios.map { "\(names[$0.0] ?? "") / \($0.1 == .curl ? "curl" : names[$0.1] ?? "")" }
print("| " + header.joined(separator: " | ") + " |")
print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
for row in rows {
    for (way, samples) in [("upload", row.up), ("download", row.down)] {
        var cells = [row.workload.label, way]
        for tool in settings.tools {
            let runs = samples[tool] ?? []
            cells.append("\(seconds(median(runs.map(\.seconds)))), \(((runs.map(\.peakKB).max() ?? 0) + 512) / 1024) MB")
        }
        for (one, other) in ratios {
            let ratio = median((samples[one] ?? []).map(\.seconds)) / median((samples[other] ?? []).map(\.seconds))
            cells.append(String(format: "%.2fx", ratio))
        }
        print("| " + cells.joined(separator: " | ") + " |")
    }
}
print(
    "giftless \(settings.rounds > 1 ? "medians of \(settings.rounds) rounds, tools alternating" : "one round") on 127.0.0.1; time, peak memory (VmHWM, highest of the rounds); "
        + "ForkStore: the sync (upload, verify, push) or the fetch (download, hash check) in a process of its own; "
        + "git lfs: `git lfs push`, `git lfs fetch` (pull without its checkout); curl: PUT/GET only, one process")
