// Record collection benchmarks, printed as a table:
//
//   forkstore-record-benchmarks [--sizes 1000,10000,100000] [--repeats 30]
//
// For each N: open, one-record update committed, one-record read, a batch of 100 updates, a
// 10-versus-10 merge, reading all records, peak memory and bytes on disk per record; and, in
// the same process, the same one-record write made with raw libgit2 calls (blob, tree,
// commit, reference) as the baseline. It also times a one-record edit through the forknotes
// binary when that binary sits beside this one.
import ForkStore
import ForkStoreGit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct Item: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
    var body: String
    var count: Int

    /// About 200 bytes encoded.
    static func make(_ index: Int, revision: Int = 0) -> Item {
        Item(
            id: "item-\(index)", title: "Item number \(index), revision \(revision)",
            body: String(repeating: "lorem ipsum ", count: 8) + "\(index)", count: revision)
    }
}

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
    var samples: [Double] = []
    for index in 0..<repeats {
        let start = ContinuousClock.now
        try body(index)
        let elapsed = ContinuousClock.now - start
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

func bytesOnDisk(_ path: String) -> Int {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
    var total = 0
    while let file = enumerator.nextObject() as? String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + file)
        if attributes?[.type] as? FileAttributeType == .typeRegular {
            total += (attributes?[.size] as? Int) ?? 0
        }
    }
    return total
}

/// The same one-record write as `RecordStore.save`, with raw libgit2 calls only.
func rawWrite(_ repository: Repository, _ item: Item, signature: Signature) throws {
    let head = try repository.resolveReference("refs/heads/main")!
    let tree = try repository.readCommit(head).tree
    let bytes = Array(try JSONEncoder().encode(item))
    let blob = try repository.writeBlob(bytes)
    let newTree = try repository.updatedTree(from: tree, applying: [.upsert(path: RecordPath(id: item.id).description, blob: blob)])
    let commit = try repository.createCommit(tree: newTree, parents: [head], message: "raw write\n", signature: signature)
    try repository.updateReference("refs/heads/main", to: commit, expecting: head, logMessage: "raw")
}

func format(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }

let (sizes, repeats) = arguments()
let root = FileManager.default.temporaryDirectory.appendingPathComponent("forkstore-bench-\(UUID().uuidString.prefix(6))").path
defer { try? FileManager.default.removeItem(atPath: root) }
let forknotes = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("forknotes").path

var rows: [[String]] = []
var commitAtFirstSize: Double?
var forknotesEditAtFirstSize: Double?
for size in sizes {
    let path = "\(root)/n\(size)"
    let store = try RecordStore<Item>.create(at: path)
    for start in stride(from: 0, to: size, by: 10_000) {
        try store.save((start..<min(start + 10_000, size)).map { Item.make($0) }, message: "Load")
    }
    let afterLoad = peakMemoryMB()
    try store.pack()
    let afterPack = peakMemoryMB()

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

    commitAtFirstSize = commitAtFirstSize ?? commit
    forknotesEditAtFirstSize = forknotesEditAtFirstSize ?? forknotesEdit
    rows.append([
        String(size), format(open), format(commit), format(baseline), format(commit / baseline) + "x",
        format(commit / (commitAtFirstSize ?? commit)) + "x", format(read), format(batch), format(merge),
        format(merge / commit) + "x", format(readAll), String(count), format(storePeak),
        String(bytesOnDisk(path) / size), format(forknotesEdit), format(forknotesEdit / (forknotesEditAtFirstSize ?? forknotesEdit)) + "x",
    ])
}

let header = [
    "N", "open ms", "commit ms", "raw ms", "vs raw", "vs first N", "read ms", "batch100 ms", "merge10v10 ms",
    "merge/commit", "read all ms", "records", "peak MB", "bytes/record", "forknotes edit ms", "edit vs first N",
]
let widths = header.indices.map { column in ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0 }
func line(_ cells: [String]) -> String {
    "| " + zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
}
print(line(header))
print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
for row in rows { print(line(row)) }
print("medians of \(repeats) runs (batch: \(max(3, repeats / 5)), merge: 5, read all: 3); peak MB: the process's peak resident memory after the store's own operations at that N (cumulative over smaller N)")
