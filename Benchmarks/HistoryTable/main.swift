// History horizon benchmark: the disk a long-edited record store takes before and after
// compaction, beside a store that holds the records once and `git gc` of the same repository,
// and how long compacting takes and how much extra disk it needs on the way.
//
//   forkstore-history-benchmarks [--records 100000] [--edits 1000000] [--keep 10000]
//
// The store: RECORDS records imported by the library (Item, about 200 bytes each), then EDITS
// one-record commits on main, each changing one record's title, written with `git fast-import`
// in exactly the library's layout and trailers (a million commits through `save` would take
// hours; fast-import writes them in minutes). Then, timed: `compactHistory(keeping:
// .keepCommits(KEEP, archive: .drop))` (write the checkpoint, replay KEEP commits, move main)
// and `pack()` (free the dropped history: repack what references reach). A thread samples the
// objects folder every 20 ms for the peak extra disk.
//
// Baselines measured in the same run: the same final records imported once into a new store
// and packed (the floor), `git gc --prune=now` of the compacted store's repository, and, for
// the walk compaction makes to find the lineage's root, libgit2 looking each commit up (in
// this process) and `git rev-list --first-parent` of the history before compaction.
import BenchmarkSupport
import ForkStore
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Synchronization

struct Settings {
    var records = 100_000, edits = 1_000_000, keep = 10_000

    static func parse() -> Settings {
        var settings = Settings()
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            let value = arguments.next().flatMap { Int($0) }
            switch (argument, value) {
            case ("--records", let value?): settings.records = max(1, value)
            case ("--edits", let value?): settings.edits = max(0, value)
            case ("--keep", let value?): settings.keep = max(1, value)
            default:
                FileHandle.standardError.write(Data("forkstore-history-benchmarks: usage: [--records N] [--edits N] [--keep N]\n".utf8))
                exit(2)
            }
        }
        return settings
    }
}

/// Bytes under `path` (files' sizes), as `du --apparent-size` counts them.
func diskSize(_ path: String) -> Int {
    guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
    var total = 0
    while let name = walker.nextObject() as? String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
        if attributes?[.type] as? FileAttributeType == .typeRegular { total += (attributes?[.size] as? Int) ?? 0 }
    }
    return total
}

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func shell(_ arguments: [String], input: FileHandle? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    if let input { process.standardInput = input }
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw POSIXError(.EIO) }
    return String(decoding: data, as: UTF8.self)
}

/// The record blob the library writes for `item`: its canonical envelope.
func envelope(_ item: Item) throws -> [UInt8] {
    let record = try JSONValueEncoder().encode(item)
    return CanonicalJSON.serialize(.object([
        .init(key: "id", value: .string(item.id)),
        .init(key: "modelVersion", value: .number("1")),
        .init(key: "record", value: record),
    ]))
}

/// Appends `edits` one-record commits to main with `git fast-import`, written to a file first.
func writeEdits(store: String, records: Int, edits: Int, startLamport: Int, replica: String) throws {
    let script = store + ".fast-import"
    _ = FileManager.default.createFile(atPath: script, contents: nil)
    guard let file = FileHandle(forWritingAtPath: script) else { throw POSIXError(.EIO) }
    var buffer: [UInt8] = []
    func flush() { file.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
    let start = Int(Date().timeIntervalSince1970) - edits  // one second apart, ending now
    for edit in 0..<edits {
        let item = Item.make(edit % records, revision: edit / records + 1)
        let time = start + edit
        let message = "Save \(item.id)\n\nModel-Version: 1\nFormat-Version: 1\nLamport: \(startLamport + edit)\n"
            + "Clock: \(time * 1000)-0\nReplica: \(replica)\nRecord-Count: \(records)\n"
        let blob = try envelope(item)
        buffer += Array("commit refs/heads/main\ncommitter ForkStore <forkstore@localhost> \(time) +0000\ndata \(message.utf8.count)\n".utf8)
        buffer += Array(message.utf8)
        if edit == 0 { buffer += Array("from refs/heads/main^0\n".utf8) }
        buffer += Array("M 100644 inline \(RecordPath(id: item.id).description)\ndata \(blob.count)\n".utf8)
        buffer += blob
        buffer += Array("\n".utf8)
        if buffer.count > 1 << 22 { flush() }
    }
    flush()
    try file.close()
    guard let input = FileHandle(forReadingAtPath: script) else { throw POSIXError(.EIO) }
    _ = try shell(["git", "--git-dir", store, "fast-import", "--quiet", "--force"], input: input)
    try? FileManager.default.removeItem(atPath: script)
}

let settings = Settings.parse()
let folder = TemporaryFolder()
print("History horizon: \(settings.records) records after \(settings.edits) one-record edits, keeping \(settings.keep) commits\n")

// The floor: the final records, once.
let oncePath = folder.child("once")
let once = try RecordStore<Item>.create(at: oncePath)
var next = 0
try once.importRecords(batchSize: 5_000) { () -> Item? in
    defer { next += 1 }
    guard next < settings.records else { return nil }
    let revision = settings.edits / settings.records + (next < settings.edits % settings.records ? 1 : 0)
    return Item.make(next, revision: revision)
}
try once.pack()
let onceSize = diskSize(oncePath + "/objects")

// The long history.
let storePath = folder.child("history")
var options = StoreOptions()
options.pruneGracePeriod = 0
let store = try RecordStore<Item>.create(at: storePath, options: options)
next = 0
try store.importRecords(batchSize: 5_000) { () -> Item? in
    defer { next += 1 }
    return next < settings.records ? Item.make(next) : nil
}
let head = try store.head()
let building = try seconds {
    try writeEdits(store: storePath, records: settings.records, edits: settings.edits, startLamport: head.lamport + 1, replica: head.replica ?? "0000000000000000")
}
let reopened = try RecordStore<Item>.open(at: storePath, options: options)
let beforeSize = diskSize(storePath + "/objects")
let commitsBefore = settings.edits + (try reopened.history(limit: 3).count > 0 ? 2 : 0)

// What walking the history costs: compaction follows main's first parents to the root. The
// library reads packed commit headers; beside it, git, and libgit2 looking each commit up
// (in this process, so with the library's libgit2 settings).
let gitWalk = try seconds { _ = try shell(["git", "--git-dir", storePath, "rev-list", "--first-parent", "--count", "refs/heads/main"]) }
let walked = try Repository.openBare(at: storePath)
guard let mainHead = try walked.resolveReference("refs/heads/main") else {
    print("FAILED: the store has no main")
    exit(1)
}
var libraryRoot = ObjectID.zero, lookupRoot = ObjectID.zero
let libraryWalk = try seconds { libraryRoot = try walked.firstParentRoot(of: mainHead) }
let lookupWalk = try seconds { lookupRoot = try rootThroughCommitLookups(of: mainHead, in: storePath) }
guard libraryRoot == lookupRoot else {
    print("FAILED: the library finds the root \(libraryRoot), libgit2 \(lookupRoot)")
    exit(1)
}

// Compaction, with a thread sampling the disk.
let peak = Mutex(beforeSize)
let sampling = Atomic(true)
let sampler = Thread {
    while sampling.load(ordering: .relaxed) {
        let size = diskSize(storePath + "/objects")
        peak.withLock { $0 = max($0, size) }
        Thread.sleep(forTimeInterval: 0.02)
    }
}
sampler.start()
var compaction: Compaction?
let compacting = try seconds { compaction = try reopened.compactHistory(keeping: .keepCommits(settings.keep, archive: .drop)) }
let freeing = try seconds { try reopened.pack() }
sampling.store(false, ordering: .relaxed)
Thread.sleep(forTimeInterval: 0.05)
let afterSize = diskSize(storePath + "/objects")
let peakExtra = peak.withLock { $0 } - beforeSize

// Every record reads the same as in the floor store.
let expected = Dictionary(uniqueKeysWithValues: try once.records().map { ($0.id, $0) })
let compacted = try reopened.records()
guard compacted.count == expected.count, compacted.allSatisfy({ expected[$0.id] == $0 }) else {
    print("FAILED: the compacted store does not hold the same records")
    exit(1)
}
let historyAfter = try reopened.history().count

// git gc of the compacted repository, as a second baseline.
let gcCopy = folder.child("gc")
_ = try shell(["cp", "-a", storePath, gcCopy])
let gcTime = try seconds { _ = try shell(["git", "--git-dir", gcCopy, "gc", "--prune=now", "--quiet"]) }
let gcSize = diskSize(gcCopy + "/objects")

func row(_ name: String, _ value: String, _ note: String = "") {
    print(name.padding(toLength: 52, withPad: " ", startingAt: 0) + value.padding(toLength: 14, withPad: " ", startingAt: 0) + note)
}
row("records once (library import + pack)", megabytes(onceSize), "baseline")
row("history before compaction (\(commitsBefore) commits)", megabytes(beforeSize), String(format: "%.1fx baseline; built in %.0f s", Double(beforeSize) / Double(onceSize), building))
row("after compaction + pack (\(historyAfter) commits)", megabytes(afterSize), String(format: "%.2fx baseline (target <= 2x)", Double(afterSize) / Double(onceSize)))
row("git gc --prune=now of the compacted store", megabytes(gcSize), String(format: "%.2fx baseline; %.1f s", Double(gcSize) / Double(onceSize), gcTime))
row("compactHistory (checkpoint, replay, move)", String(format: "%.2f s", compacting), "target <= 10 s; \(compaction?.replayed ?? 0) commits replayed")
row("finding the history's root: the library", String(format: "%.2f s", libraryWalk), "packed commit headers")
row("  the same through libgit2's commit lookups", String(format: "%.2f s", lookupWalk), "raw libgit2, the library's settings")
row("  git rev-list --first-parent --count main", String(format: "%.2f s", gitWalk))
row("pack (free the dropped history)", String(format: "%.2f s", freeing))
row("peak extra disk during both", megabytes(peakExtra), String(format: "%.2fx the store before (target <= 1x)", Double(peakExtra) / Double(beforeSize)))
