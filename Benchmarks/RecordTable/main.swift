// Record collection benchmarks, printed as a table:
//
//   forkstore-record-benchmarks [--sizes 1000,10000,100000] [--repeats 30] [--queries-only]
//                               [--listing-only] [--listing-rounds 5]
//
// For each N: open, one-record update committed, one-record read, a batch of 100 updates, a
// 10-versus-10 merge, count, reading all records, peak memory, bytes on disk per record and
// files in the store; and, in the same process, the same one-record write made with raw
// libgit2 calls (blob, tree, commit, reference) as the baseline, and the physical limit: the
// same commit into memory, many of them written as one pack with the reference moved once. It
// also times a one-record edit through the forknotes binary when that binary sits beside this
// one. A second table imports N records (batches of 1,000) in a child process, beside
// `git fast-import` of the same records tree (checked equal): time, peak memory, bytes and
// files. A last table lists N notes with `forknotes list --json` beside `git cat-file --batch`
// reading the same blobs: wall time, CPU time and peak memory, medians of alternating rounds.
import BenchmarkSupport
import ForkStore
import ForkStoreGit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

func arguments() -> (sizes: [Int], repeats: Int) {
    var sizes = [1_000, 10_000, 100_000], repeats = 30
    var iterator = CommandLine.arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
        switch argument {
        case "--sizes": sizes = iterator.next()?.split(separator: ",").compactMap { Int($0) } ?? sizes
        case "--repeats": repeats = iterator.next().flatMap { Int($0) } ?? repeats
        default: break
        }
    }
    return (sizes, max(3, repeats))
}

/// The median duration of `repeats` runs, in milliseconds.
func median(_ repeats: Int, _ body: (Int) throws -> Void) rethrows -> Double {
    try medianOfParts(repeats) { index in
        let start = ContinuousClock.now
        try body(index)
        return ContinuousClock.now - start
    }
}

/// The median of `repeats` runs of `body`, which returns the part of its run to count, in
/// milliseconds.
func medianOfParts(_ repeats: Int, _ body: (Int) throws -> Duration) rethrows -> Double {
    var samples: [Double] = []
    for index in 0..<repeats {
        let elapsed = try body(index)
        samples.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
    }
    samples.sort()
    return samples[samples.count / 2]
}

func peakMemoryMB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
}

/// How many files a store holds.
/// How many regular files a folder holds, and their bytes.
func regularFiles(_ path: String) -> (count: Int, bytes: Int) {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return (0, 0) }
    var found = (count: 0, bytes: 0)
    while let file = enumerator.nextObject() as? String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + file)
        if attributes?[.type] as? FileAttributeType == .typeRegular {
            found.count += 1
            found.bytes += (attributes?[.size] as? Int) ?? 0
        }
    }
    return found
}

func format(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--import-child", let count = Int(CommandLine.arguments[3]) {
    // The child half of the import table: import `count` records into the store at the path.
    let path = CommandLine.arguments[2]
    let store = try FileManager.default.fileExists(atPath: path) ? RecordStore<Item>.open(at: path) : RecordStore<Item>.create(at: path)
    var next = 0
    try store.importRecords(batchSize: 1_000) {
        guard next < count else { return nil }
        defer { next += 1 }
        return Item.make(next)
    }
    exit(0)
}

/// Runs a program to its end; returns its wall time in seconds, its CPU time (user and system,
/// from `wait4`) and its peak memory in MB, read from `/proc/<pid>/status` while it runs (the
/// peak `wait4` reports would count the memory of this process, from before the child's
/// `exec`).
func measure(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (seconds: Double, peakMB: Double, cpuSeconds: Double) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let start = ContinuousClock.now
    guard posix_spawn(&child, executable, &actions, nil, argv, environ) == 0 else { throw POSIXError(.ENOENT) }
    var status: Int32 = 0
    var peakKB = 0
    var usage = rusage()
    while wait4(child, &status, WNOHANG, &usage) == 0 {
        let text = (try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8)) ?? ""
        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        {
            peakKB = max(peakKB, kilobytes)
        }
        usleep(2_000)
    }
    let elapsed = ContinuousClock.now - start
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return (
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, Double(peakKB) / 1024,
        seconds(usage.ru_utime) + seconds(usage.ru_stime)
    )
}

/// One row of the import table: this package's import against git fast-import of the same tree.
func importRow(_ size: Int, root: String) throws -> [String] {
    let ours = "\(root)/import\(size)", theirs = "\(root)/fast-import\(size)", stream = "\(root)/stream\(size)"
    _ = try RecordStore<Item>.create(at: ours)
    let mine = try measure(CommandLine.arguments[0], ["--import-child", ours, String(size)])
    // The same commits and blobs as a fast-import stream.
    var text = ""
    for (batch, start) in stride(from: 0, to: size, by: 1_000).enumerated() {
        text += "commit refs/heads/main\nmark :\(batch + 1)\ncommitter bench <bench@localhost> 1700000000 +0000\ndata 6\nimport\n"
        if batch > 0 { text += "from :\(batch)\n" }
        for index in start..<min(start + 1_000, size) {
            let item = Item.make(index)
            let envelope = #"{"id":"\#(item.id)","modelVersion":1,"record":\#(String(decoding: try JSONEncoder().encode(item), as: UTF8.self))}"#
            let bytes = String(decoding: try CanonicalJSON.canonicalize(Array(envelope.utf8)), as: UTF8.self)
            text += "M 100644 inline \(RecordPath(id: item.id))\ndata \(bytes.utf8.count)\n\(bytes)\n"
        }
        text += "\n"
    }
    try text.write(toFile: stream, atomically: true, encoding: .utf8)
    let initialized = Process()
    initialized.executableURL = URL(fileURLWithPath: "/usr/bin/git")
    initialized.arguments = ["init", "-q", "--bare", theirs]
    try initialized.run()
    initialized.waitUntilExit()
    let git = try measure("/usr/bin/git", ["--git-dir", theirs, "fast-import", "--quiet"], input: stream)
    func tree(_ repository: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["--git-dir", repository, "rev-parse", "main:records"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try? process.run()
        process.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
    let ourTree = tree(ours)
    let same = ourTree == tree(theirs) && !ourTree.isEmpty
    let (ourFiles, theirFiles) = (regularFiles(ours), regularFiles(theirs))
    let (oursBytes, theirBytes) = (ourFiles.bytes, theirFiles.bytes)
    return [
        String(size), format(mine.seconds), format(git.seconds), format(mine.seconds / git.seconds) + "x",
        format(mine.peakMB), format(git.peakMB), format(Double(oursBytes) / 1e6), format(Double(theirBytes) / 1e6),
        format(Double(oursBytes) / Double(theirBytes)) + "x", String(ourFiles.count), String(theirFiles.count), same ? "yes" : "NO",
    ]
}

let (sizes, repeats) = arguments()
/// `--listing-rounds N`: how many alternating rounds the listing table takes its medians of.
let listingRounds = CommandLine.arguments.firstIndex(of: "--listing-rounds").flatMap { position in
    CommandLine.arguments.dropFirst(position + 1).first.flatMap { Int($0) }
}.map { max(1, $0) } ?? 5
/// `--queries-only`: print only the query table (no forknotes figures).
let queriesOnly = CommandLine.arguments.contains("--queries-only")
/// `--listing-only`: print only the listing table.
let listingOnly = CommandLine.arguments.contains("--listing-only")
let root = FileManager.default.temporaryDirectory.appendingPathComponent("forkstore-bench-\(UUID().uuidString.prefix(6))").path
defer { try? FileManager.default.removeItem(atPath: root) }
let forknotes = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("forknotes").path

var rows: [[String]] = []
var rollUpRows: [[String]] = []
var commitAtFirstSize: Double?
var forknotesEditAtFirstSize: Double?
for size in sizes where !queriesOnly && !listingOnly {
    let path = "\(root)/n\(size)"
    let store = try RecordStore<Item>.create(at: path)
    for start in stride(from: 0, to: size, by: 10_000) {
        try store.save((start..<min(start + 10_000, size)).map { Item.make($0) }, message: "Load")
    }
    let afterLoad = peakMemoryMB()
    let packStarted = ContinuousClock.now
    try store.pack()
    let packed = ContinuousClock.now - packStarted
    let afterPack = peakMemoryMB()
    // The read-back a roll-up does before it removes a pack, alone, on the pack it made.
    let readBackStarted = ContinuousClock.now
    for pack in try Repository.openBare(at: path).packs() {
        try PackReader(pack: pack.base + ".pack", index: PackIndex(path: pack.base + ".idx")).verify()
    }
    let readBack = ContinuousClock.now - readBackStarted
    rollUpRows.append([
        String(size), format(packed.milliseconds), format(readBack.milliseconds), format(100 * readBack.milliseconds / packed.milliseconds) + "%",
    ])

    let open = try median(repeats) { _ in _ = try RecordStore<Item>.open(at: path).head() }
    let commit = try median(repeats) { run in try store.save(Item.make(run * 7 % size, revision: run + 1)) }
    let read = try median(repeats) { run in _ = try store.record("item-\(run * 13 % size)") }
    let batch = try median(max(3, repeats / 5)) { run in
        try store.save((0..<100).map { Item.make(($0 * 97 + run) % size, revision: 1_000 + run) })
    }
    // Only the merge is timed: each run first prepares a fork with 10 changes on each side.
    var mergeSamples: [Double] = []
    for run in 0..<5 {
        let fork = try Fork("bench-\(run)")
        try store.createFork(fork)
        try store.transaction { changes in for i in 0..<10 { changes.save(Item.make((i * 31 + run) % size, revision: 5_000)) } }
        try store.transaction(on: fork) { changes in for i in 0..<10 { changes.save(Item.make((i * 37 + run + size / 2) % size, revision: 6_000)) } }
        mergeSamples.append(try median(1) { _ in try store.mergeIntoMain(from: fork) })
    }
    let merge = mergeSamples.sorted()[2]
    let counting = try median(repeats) { _ in _ = try store.count() }
    let beforeReadAll = peakMemoryMB()
    var count = 0
    // Listing streams: each record is decoded, used and released, as an app would.
    let readAll = try median(3) { _ in
        count = 0
        try store.forEachRecord { _ in count += 1 }
    }
    let storePeak = peakMemoryMB()
    FileHandle.standardError.write(Data("N=\(size): peak MB after load \(format(afterLoad)), after pack \(format(afterPack)), before read-all \(format(beforeReadAll)), after read-all \(format(storePeak))\n".utf8))

    let signature = Signature(name: "bench", email: "bench@localhost")
    let baselinePath = "\(root)/raw\(size)"
    _ = try RecordStore<Item>.create(at: baselinePath)
    let raw = try Repository.openBare(at: baselinePath)
    for start in stride(from: 0, to: size, by: 10_000) {
        let head = try raw.resolveReference("refs/heads/main")!
        var changes: [TreeChange] = []
        for index in start..<min(start + 10_000, size) {
            changes.append(.upsert(path: RecordPath(id: "item-\(index)").description, blob: try raw.writeBlob(Array(try JSONEncoder().encode(Item.make(index))))))
        }
        let tree = try raw.updatedTree(from: try raw.readCommit(head).tree, applying: changes)
        let commitID = try raw.createCommit(tree: tree, parents: [head], message: "load\n", signature: signature)
        try raw.updateReference("refs/heads/main", to: commitID, expecting: head, logMessage: "load")
    }
    try raw.packLooseObjects()
    let baseline = try median(repeats) { run in try rawWrite(raw, Item.make(run * 7 % size, revision: run + 1), signature: signature) }
    // The physical limit: commits into memory, written as one pack, the reference moved once.
    let inMemory = try median(3) { round in
        let head = try raw.resolveReference("refs/heads/main")!
        let last = try raw.withObjectsInOnePack { batch -> (ObjectID, commits: [ObjectID]) in
            var parent = head
            var commits: [ObjectID] = []
            for run in 0..<repeats {
                let item = Item.make((run * 7 + round) % size, revision: 10_000 + run)
                let blob = try batch.writeBlob(Array(try JSONEncoder().encode(item)))
                let tree = try batch.updatedTree(
                    from: try batch.readCommit(parent).tree, applying: [.upsert(path: RecordPath(id: item.id).description, blob: blob)])
                parent = try batch.createCommit(tree: tree, parents: [parent], message: "mempack\n", signature: signature)
                commits.append(parent)
            }
            return (parent, commits)
        }
        try raw.updateReference("refs/heads/main", to: last, expecting: head, logMessage: "mempack")
    } / Double(repeats)

    var forknotesEdit = Double.nan
    if FileManager.default.isExecutableFile(atPath: forknotes) {
        let notes = "\(root)/notes\(size)", lines = "\(root)/notes\(size).jsonl"
        let text = (0..<size).map { #"{"id":"n\#($0)","title":"Note \#($0)","body":"\#(String(repeating: "body text ", count: 12))","tags":["a","b"],"done":false}"# }
        try text.joined(separator: "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        func forknotesRun(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: forknotes)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
        try forknotesRun(["init", "--store", notes])
        try forknotesRun(["import", "--store", notes, "--batch-size", "10000", lines])
        forknotesEdit = try median(max(3, repeats / 3)) { run in
            try forknotesRun(["edit", "--store", notes, "n\(run * 11 % size)", "--title", "edited \(run)"])
        }
    }

    let stored = regularFiles(path)
    commitAtFirstSize = commitAtFirstSize ?? commit
    forknotesEditAtFirstSize = forknotesEditAtFirstSize ?? forknotesEdit
    rows.append([
        String(size), format(open), format(commit), format(baseline), format(commit / baseline) + "x",
        format(commit / (commitAtFirstSize ?? commit)) + "x", format(read), format(batch), format(merge),
        format(merge / commit) + "x", format(counting), format(readAll), String(count), format(storePeak),
        String(stored.bytes / size), String(stored.count), format(inMemory), format(forknotesEdit),
        format(forknotesEdit / (forknotesEditAtFirstSize ?? forknotesEdit)) + "x",
    ])
}

func printTable(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { column in ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
    func line(_ cells: [String]) -> String {
        "| " + zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
    }
    print(line(header))
    print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    for row in rows { print(line(row)) }
}

if !listingOnly {
    printTable([
        "N", "open ms", "commit ms", "raw ms", "vs raw", "vs first N", "read ms", "batch100 ms", "merge10v10 ms",
        "merge/commit", "count ms", "read all ms", "records", "peak MB", "bytes/record", "files", "in-memory commit ms",
        "forknotes edit ms", "edit vs first N",
    ], rows)
    print("medians of \(repeats) runs (batch: \(max(3, repeats / 5)), merge: 5, read all: 3); peak MB: the process's peak resident memory after the store's own operations at that N (cumulative over smaller N); in-memory commit: the physical limit, \(repeats) commits into memory written as one pack with the reference moved once, per commit")
    print()
    printTable(["N", "pack() ms", "read-back ms", "read-back share"], rollUpRows)
    print("pack(): rolling the load's packs (batches of 10,000 records) into one, its new pack read back whole before the old ones go; read-back: that check alone, run again on the pack it made (every entry inflated, every delta applied, every object hashed)")
    print()
    printTable(["N", "import s", "fast-import s", "vs fast-import", "import peak MB", "fast-import peak MB", "import MB", "fast-import MB", "size ratio", "import files", "fast-import files", "same tree"],
               try (queriesOnly ? [] : sizes).map { try importRow($0, root: root) })
    print("import: RecordStore.importRecords in a child process, batches of 1,000 records, 8 batches per pack; fast-import: git fast-import of a stream with the same commits and blobs")
    print()
    printTable(["N", "read all ms", "index build ms", "build/read all", "first query ms", "tag+due+limit20 ms", "count ms",
                "update after commit ms", "update after merge10v10 ms", "list --json s", "list --json MB", "list --limit 20 ms"],
               try sizes.map { try queryRow($0, root: root, repeats: repeats, forknotes: forknotes) })
    print("queries: ForkStoreQueries over a record collection with an indexed title, due date and tag set; first query: open a new store object over the built index and run tag = X, sorted by due, limit 20; update: bringing the index to the head after a one-record commit / a 10-versus-10 merge; forknotes: the release binary over the store the first table made (list --limit 20 includes process start)")
}
print()
printTable(["N", "list --json s", "cat-file s", "vs cat-file", "list CPU s", "cat-file CPU s", "list peak MB", "cat-file peak MB", "same blobs"],
           try (queriesOnly ? [] : sizes).map { try listingRow($0, root: root, rounds: listingRounds, forknotes: forknotes) })
print("listing: forknotes list --json of N notes (a title, a 100-character body, one tag) beside git cat-file --batch reading the same N blobs, both writing to /dev/null; medians of \(listingRounds) alternating rounds (--listing-rounds); same blobs: the blobs cat-file read are the ones the notes' tree holds, as many as list printed")

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }
}
