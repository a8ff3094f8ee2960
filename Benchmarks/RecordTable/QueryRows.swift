import ForkStore
import ForkStoreQueries
import Foundation

/// A note-like record with an indexed tag set and due date, for the query table.
struct TaskItem: IndexedRecord, Equatable {
    static let modelVersion = 1
    static let indexedFields: [IndexedField<TaskItem>] = [.field("title", \.title), .field("due", \.due), .each("tag", \.tags)]
    var id: String
    var title: String
    var body: String
    var tags: [String]
    var due: Date?

    static func make(_ index: Int, revision: Int = 0) -> TaskItem {
        TaskItem(
            id: "task-\(index)", title: "TaskItem \(index) r\(revision)", body: String(repeating: "lorem ipsum ", count: 8),
            tags: ["t\(index % 50)", index % 3 == 0 ? "work" : "home"],
            due: index % 4 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double((index * 7919) % 1_000_000)))
    }
}

/// One row of the query table at `size` records: building the index beside reading every
/// record, a first query on a new store object over the built index, "tag = X, sorted by
/// due, limit 20", a filtered count, the index update after a one-record commit and after a
/// 10-versus-10 merge, and `forknotes list --json` / `list --limit 20` as processes.
func queryRow(_ size: Int, root: String, repeats: Int, forknotes: String) throws -> [String] {
    let path = "\(root)/tasks\(size)"
    let store = try RecordStore<TaskItem>.create(at: path)
    var next = 0
    try store.importRecords(batchSize: 10_000) {
        guard next < size else { return nil }
        defer { next += 1 }
        return TaskItem.make(next)
    }
    let tagQuery = RecordQuery<TaskItem>().filter(\.tags, contains: "t7").sorted(by: \.due).limit(20)
    let readAll = try median(3) { _ in try store.forEachRecord { _ in } }
    let build = try median(1) { _ in try store.refreshIndex() }
    let firstQuery = try median(3) { _ in _ = try RecordStore<TaskItem>.open(at: path).query(tagQuery) }
    let query = try median(repeats) { _ in _ = try store.query(tagQuery) }
    let count = try median(repeats) { _ in _ = try store.count(matching: RecordQuery<TaskItem>().filter(\.tags, contains: "work")) }
    let update = try medianOfParts(repeats) { run in
        try store.save(TaskItem.make((run * 37) % size, revision: run + 1))
        let start = ContinuousClock.now
        try store.refreshIndex()
        return ContinuousClock.now - start
    }
    let side = try Fork("side")
    let merge = try medianOfParts(5) { run in
        if try store.hasFork(side) { try store.deleteFork(side) }
        try store.createFork(side, from: .main)
        try store.refreshIndex()
        try store.refreshIndex(of: side)
        for index in 0..<10 {
            try store.save(TaskItem.make((run * 101 + index) % size, revision: 100 + run), to: .main)
            try store.save(TaskItem.make((run * 101 + index + 50) % size, revision: 200 + run), to: side)
        }
        try store.refreshIndex()
        try store.merge(from: side, into: .main)
        let start = ContinuousClock.now
        try store.refreshIndex()
        return ContinuousClock.now - start
    }
    var listJSON = (seconds: Double.nan, peakMB: Double.nan), listLimit = Double.nan
    if FileManager.default.isExecutableFile(atPath: forknotes) {
        let notes = "\(root)/notes\(size)"
        if FileManager.default.fileExists(atPath: notes) {
            _ = try measure(forknotes, ["list", "--store", notes, "--limit", "1"])  // builds the index
            let listed = try measure(forknotes, ["list", "--store", notes, "--json"])
            listJSON = (listed.seconds, listed.peakMB)
            listLimit = try median(3) { _ in _ = try measure(forknotes, ["list", "--store", notes, "--tag", "a", "--sort", "due", "--limit", "20"]) }
        }
    }
    return [
        String(size), format(readAll), format(build), format(build / readAll) + "x", format(firstQuery), format(query),
        format(count), format(update), format(merge), format(listJSON.seconds), format(listJSON.peakMB), format(listLimit),
    ]
}
