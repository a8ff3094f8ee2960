import ForkStore
import ForkStoreQueries
import ForkStoreTestSupport
import Foundation
import Testing

/// The queries every comparison runs: indexed filters of each kind, sorts both ways, pages,
/// and one on a field that is not indexed (answered by a scan).
let sampleQueries: [(name: String, query: RecordQuery<IndexedItem>, expected: @Sendable ([IndexedItem]) -> [IndexedItem])] = {
    let cutoff = Date(timeIntervalSinceReferenceDate: 500)
    @Sendable func byID(_ a: IndexedItem, _ b: IndexedItem) -> Bool { a.id.utf8.lexicographicallyPrecedes(b.id.utf8) }
    @Sendable func due(_ item: IndexedItem) -> Double { item.due?.timeIntervalSinceReferenceDate ?? -.infinity }
    return [
        ("all", RecordQuery(), { $0.sorted(by: byID) }),
        // Unpaged, so its count goes through the count of a tag's entries alone.
        ("tag red", RecordQuery().filter(\.tags, contains: "red"), { items in items.filter { $0.tags.contains("red") }.sorted(by: byID) }),
        ("tag red by due, 5", RecordQuery().filter(\.tags, contains: "red").sorted(by: \.due).limit(5), { items in
            Array(items.filter { $0.tags.contains("red") }.sorted { due($0) != due($1) ? due($0) < due($1) : byID($0, $1) }.prefix(5))
        }),
        ("due before cutoff", RecordQuery().filter(\.due, lessThan: cutoff), { items in
            items.filter { $0.due.map { $0 < cutoff } ?? false }.sorted(by: byID)
        }),
        ("no due date", RecordQuery().filter(\.due, equals: nil), { items in items.filter { $0.due == nil }.sorted(by: byID) }),
        ("priority 2...4 by priority desc then title", RecordQuery().filter(\.priority, atLeast: 2).filter(\.priority, atMost: 4)
            .sorted(by: \.priority, descending: true).sorted(by: \.title), { items in
            items.filter { (2...4).contains($0.priority) }.sorted {
                $0.priority != $1.priority ? $0.priority > $1.priority
                    : (!$0.title.utf8.elementsEqual($1.title.utf8) ? $0.title.utf8.lexicographicallyPrecedes($1.title.utf8) : byID($0, $1))
            }
        }),
        ("title equals", RecordQuery().filter(\.title, equals: "b"), { items in
            items.filter { $0.title.utf8.elementsEqual("b".utf8) }.sorted(by: byID)
        }),
        ("title empty", RecordQuery().filter(\.title, equals: ""), { items in items.filter { $0.title.isEmpty }.sorted(by: byID) }),
        ("title equals, page 2", RecordQuery().filter(\.title, equals: "b").limit(3, offset: 3), { items in
            Array(items.filter { $0.title.utf8.elementsEqual("b".utf8) }.sorted(by: byID).dropFirst(3).prefix(3))
        }),
        ("not indexed: note", RecordQuery().filter(\.note, equals: "x").sorted(by: \.priority), { items in
            items.filter { $0.note == "x" }.sorted { $0.priority != $1.priority ? $0.priority < $1.priority : byID($0, $1) }
        }),
    ]
}()

/// Removes a store's index file and its WAL files, as a user deleting the cache would.
func removeIndexFiles(ofStoreAt path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + "/forkstore-index.sqlite" + suffix) }
}

/// Checks every sample query, and the count of every unpaged one (a count ignores pages; the
/// paged samples have unpaged twins), against the same query worked out from a full listing.
func expectIndexAgreesWithAScan(_ store: RecordStore<IndexedItem>, in fork: Fork = .main, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let all = try store.records(in: fork)
    for sample in sampleQueries {
        let found = try store.query(sample.query, in: fork)
        let expected = sample.expected(all)
        #expect(found.map(\.id) == expected.map(\.id), "\(sample.name) on \(fork)", sourceLocation: sourceLocation)
        if found.map(\.id) == expected.map(\.id) {
            #expect(found == expected, "\(sample.name) on \(fork): records", sourceLocation: sourceLocation)
        }
        if sample.query.limit == nil {
            #expect(try store.count(matching: sample.query, in: fork) == expected.count, "count of \(sample.name)", sourceLocation: sourceLocation)
        }
    }
}

func randomItem(_ random: inout SplitMix, id: String) -> IndexedItem {
    // Empty text is a value, not a missing one: the index must not store it as NULL.
    let titles = ["a", "b", "c", "B", "é", "e\u{301}", ""]
    let tags = ["red", "green", "blue"]
    return IndexedItem(
        id: id, title: titles.randomElement(using: &random)!, priority: Int.random(in: 0...5, using: &random),
        due: Bool.random(using: &random) ? nil : Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1000, using: &random))),
        tags: tags.filter { _ in Bool.random(using: &random) },
        note: Bool.random(using: &random) ? "x" : "y")
}

@Suite("Queries through the derived index")
struct QueryTests {
    @Test(arguments: [1, 2, 3])
    func theIndexAgreesWithAScanAfterRandomWritesMergesAndCrissCrosses(seed: UInt64) throws {
        let folder = TemporaryFolder()
        let store = try RecordStore<IndexedItem>.create(at: folder.child("store"))
        var random = SplitMix(state: seed)
        let ids = (0..<40).map { "item-\($0)" } + ["é", "e\u{301}", "a/b", " spaced "]
        try store.save(ids.prefix(10).map { randomItem(&random, id: $0) })
        _ = try store.createFork(Fork("phone"), from: .main)
        for step in 0..<60 {
            let fork = Bool.random(using: &random) ? Fork.main : try Fork("phone")
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                try store.save(randomItem(&random, id: ids.randomElement(using: &random)!), to: fork)
            case 4:
                let present = try store.records(in: fork).map(\.id)
                if let id = present.randomElement(using: &random) { try store.delete(id, from: fork) }
            case 5, 6:
                let present = Set(try store.records(in: fork).map(\.id))
                try store.transaction(on: fork) { changes in
                    for _ in 0..<Int.random(in: 1...6, using: &random) {
                        let id = ids.randomElement(using: &random)!
                        if Bool.random(using: &random) || !present.contains(id) {
                            changes.save(randomItem(&random, id: id))
                        } else {
                            changes.delete(id)
                        }
                    }
                }
            case 7:
                try store.merge(from: try Fork("phone"), into: .main)
            case 8:
                try store.merge(from: .main, into: try Fork("phone"))
            default:
                // Criss-cross: both merge from each other's old heads.
                try store.merge(from: try Fork("phone"), into: .main)
                try store.merge(from: .main, into: try Fork("phone"))
            }
            // Check now and then, so the index is brought forward across several commits too.
            if step % 7 == 0 || step == 59 {
                try expectIndexAgreesWithAScan(store, in: .main)
                try expectIndexAgreesWithAScan(store, in: try Fork("phone"))
            }
        }
        // A second store object over the same folder reads the same file.
        try expectIndexAgreesWithAScan(try RecordStore<IndexedItem>.open(at: store.path))
    }

    /// A change of more records than the index holds (a first sync's) is written without the
    /// secondary indexes, which are made again after: over every fork's rows, not only the
    /// changed fork's.
    @Test func aLargeChangeLeavesEveryIndexInPlaceAndRight() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        var random = SplitMix(state: 17)
        let store = try await RecordStore<IndexedItem>.create(at: path)
        try await store.save((0..<60).map { randomItem(&random, id: "i\($0)") })
        _ = try await store.createFork(Fork("phone"), from: .main)
        try await store.save(randomItem(&random, id: "phone-only"), to: Fork("phone"))
        try expectIndexAgreesWithAScan(store)
        try expectIndexAgreesWithAScan(store, in: Fork("phone"))
        // The indexes, and the rows ANALYZE counted in records_by_id: made again after the
        // change, it counts the change's rows too.
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(",".join(sorted(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))))
            print(db.execute("SELECT stat FROM sqlite_stat1 WHERE idx = 'records_by_id'").fetchone()[0].split()[0])
            """
        let before = try await run("/usr/bin/env", ["python3", "-c", script, path + "/forkstore-index.sqlite"])
        try await store.transaction { changes in
            for index in 0..<4200 { changes.save(randomItem(&random, id: "n\(index)")) }
            for index in 0..<10 { changes.save(randomItem(&random, id: "i\(index)")) }
            for index in 10..<20 { changes.delete("i\(index)") }
        }
        try expectIndexAgreesWithAScan(store)
        try expectIndexAgreesWithAScan(store, in: Fork("phone"))
        let after = try await run("/usr/bin/env", ["python3", "-c", script, path + "/forkstore-index.sqlite"])
        #expect(before.status == 0 && after.status == 0, "\(before.stderr)\(after.stderr)")
        let (indexesBefore, indexesAfter) = (before.stdout.split(separator: "\n").first, after.stdout.split(separator: "\n").first)
        #expect(indexesBefore?.contains("records_by_id") == true && indexesBefore?.contains("items_by_value") == true)
        #expect(indexesAfter == indexesBefore)
        #expect(after.stdout.split(separator: "\n").last.flatMap { Int($0) }.map { $0 >= 4200 } == true, "\(after.stdout)")
    }

    @Test func aDeletedIndexIsRebuilt() throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let store = try RecordStore<IndexedItem>.create(at: path)
        var random = SplitMix(state: 7)
        try store.save((0..<50).map { randomItem(&random, id: "i\($0)") })
        try expectIndexAgreesWithAScan(store)
        let file = path + "/forkstore-index.sqlite"
        #expect(FileManager.default.fileExists(atPath: file))
        removeIndexFiles(ofStoreAt: path)
        try store.save(randomItem(&random, id: "i3"))
        try expectIndexAgreesWithAScan(try RecordStore<IndexedItem>.open(at: path))
        #expect(FileManager.default.fileExists(atPath: file))
    }

    /// A blob at a path its id does not give is a damaged record: never indexed, so never
    /// answered, whether the index is brought forward over it, built with it there, or a new
    /// fork's rows start from another fork's. (A listing through the index does not check
    /// paths again: every row it holds was checked.)
    @Test func aRecordAtAPathItsIdDoesNotGiveIsNeverAnswered() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let store = try await RecordStore<IndexedItem>.create(at: path)
        try await store.save(IndexedItem(id: "a", title: "A"))
        #expect(try await store.query(RecordQuery()).map(\.id) == ["a"])
        let blob = try await git("--git-dir", path, "show", "main:\(RecordPath(id: "a"))").stdout
        try await addByHand([RecordPath(id: "b").description: blob], to: path)
        #expect(try await store.query(RecordQuery()).map(\.id) == ["a"])
        #expect(try await store.count(matching: RecordQuery()) == 1)
        _ = try await store.createFork(Fork("copy"), from: .main)
        #expect(try await store.query(RecordQuery(), in: Fork("copy")).map(\.id) == ["a"])
        removeIndexFiles(ofStoreAt: path)
        let reopened = try await RecordStore<IndexedItem>.open(at: path)
        #expect(try await reopened.query(RecordQuery()).map(\.id) == ["a"])
        #expect(try await reopened.recordsAndProblems().problems.map(\.path) == [RecordPath(id: "b").description])
    }

    @Test(arguments: ["garbage", "truncated"])
    func aDamagedIndexFileIsReplacedAndResultsStayRight(damage: String) throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        var random = SplitMix(state: 11)
        do {
            let store = try RecordStore<IndexedItem>.create(at: path)
            try store.save((0..<300).map { randomItem(&random, id: "i\($0)") })
            try store.refreshIndex()
        }
        let file = path + "/forkstore-index.sqlite"
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        if damage == "garbage" {
            bytes = Data(repeating: 0x5A, count: bytes.count)
        } else {
            // Keep the header, wreck the pages after it.
            bytes.replaceSubrange(100..<bytes.count, with: Data(repeating: 0xFF, count: bytes.count - 100))
        }
        try bytes.write(to: URL(fileURLWithPath: file))
        let reopened = try RecordStore<IndexedItem>.open(at: path)
        try expectIndexAgreesWithAScan(reopened)
        #expect(try reopened.count(matching: RecordQuery()) == 300)
    }

    /// A row whose blob is not an object id, or whose path is not text (a file written by
    /// hand, or damaged inside a valid database), is damage like any other: the file is made
    /// again, and the answer is right.
    @Test(arguments: ["blob = 'not an id'", "blob = 42", "blob = x'00'", "path = x'00'"])
    func aRowThatNamesNoBlobOrNoPathIsRepaired(damage: String) async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        var random = SplitMix(state: 13)
        let store = try await RecordStore<IndexedItem>.create(at: path)
        try await store.save((0..<20).map { randomItem(&random, id: "i\($0)") })
        try await store.refreshIndex()
        // Python's sqlite3 as an outside writer: the tests have no SQLite of their own.
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("UPDATE records SET \(damage) WHERE id = 'i7'")
            db.commit()
            """
        let damaged = try await run("/usr/bin/env", ["python3", "-c", script, path + "/forkstore-index.sqlite"])
        #expect(damaged.status == 0, "\(damaged.stderr)")
        let reopened = try await RecordStore<IndexedItem>.open(at: path)
        #expect(try await reopened.query(RecordQuery()).map(\.id) == (try await reopened.records()).map(\.id).sorted())
        #expect(try await reopened.count(matching: RecordQuery()) == 20)
    }

    @Test func anIndexReflectingAnotherStoresCommitIsRebuilt() throws {
        let folder = TemporaryFolder()
        var random = SplitMix(state: 5)
        let one = try RecordStore<IndexedItem>.create(at: folder.child("one"))
        let two = try RecordStore<IndexedItem>.create(at: folder.child("two"))
        try one.save((0..<30).map { randomItem(&random, id: "one-\($0)") })
        try two.save((0..<20).map { randomItem(&random, id: "two-\($0)") })
        try one.refreshIndex()
        // Copy one's index into two: its commit is not in two's history.
        let reopenedPath = folder.child("two")
        try two.refreshIndex()
        removeIndexFiles(ofStoreAt: reopenedPath)
        try FileManager.default.copyItem(atPath: folder.child("one") + "/forkstore-index.sqlite", toPath: reopenedPath + "/forkstore-index.sqlite")
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: folder.child("one") + "/forkstore-index.sqlite" + suffix) {
            try FileManager.default.copyItem(
                atPath: folder.child("one") + "/forkstore-index.sqlite" + suffix, toPath: reopenedPath + "/forkstore-index.sqlite" + suffix)
        }
        let reopened = try RecordStore<IndexedItem>.open(at: reopenedPath)
        #expect(try reopened.count(matching: RecordQuery()) == 20)
        try expectIndexAgreesWithAScan(reopened)
    }

    @Test func anIndexKilledMidUpdateIsFoundStaleAndRepaired() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        var random = SplitMix(state: 3)
        let store = try await RecordStore<IndexedItem>.create(at: path)
        try await store.save((0..<200).map { randomItem(&random, id: "i\($0)") })
        try await store.refreshIndex()
        var interrupted = 0
        // A large change, so the writer is killed while it applies it; under a sanitizer, where
        // the update and each scan are several times slower, a quarter of it.
        let changed = Sanitizer.scaled(2000, sanitized: 500)
        for round in 0..<4 {
            try await store.transaction { changes in
                for index in 0..<changed { changes.save(randomItem(&random, id: "r\(round)-\(index)")) }
            }
            let acknowledged = try await runStressWriter(["index", path], killAfter: 1, delay: Double(round) * 0.04)
            #expect(acknowledged.first == "start")
            if !acknowledged.contains("indexed") { interrupted += 1 }
            let reopened = try await RecordStore<IndexedItem>.open(at: path)
            try expectIndexAgreesWithAScan(reopened)
        }
        // At least one kill landed before the update was done (round 0 kills at once).
        #expect(interrupted > 0)
    }

    @Test func anIndexWrittenForOtherFieldsIsRebuilt() throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        var random = SplitMix(state: 13)
        let store = try RecordStore<IndexedItem>.create(at: path)
        try store.save((0..<60).map { randomItem(&random, id: "i\($0)") })
        try store.refreshIndex()
        // The same records seen through a type that indexes other fields.
        let other = try RecordStore<ItemIndexedByNote>.open(at: path)
        let byNote = try other.query(RecordQuery<ItemIndexedByNote>().filter(\.note, equals: "x"))
        #expect(byNote.map(\.id) == (try store.records()).filter { $0.note == "x" }.map(\.id).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        // And back: the first type's index is rebuilt in turn.
        try expectIndexAgreesWithAScan(try RecordStore<IndexedItem>.open(at: path))
    }

    @Test func aQuerySeesWritesMadeThroughAnotherStoreObject() throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        var random = SplitMix(state: 17)
        let store = try RecordStore<IndexedItem>.create(at: path)
        try store.save((0..<20).map { randomItem(&random, id: "i\($0)") })
        try expectIndexAgreesWithAScan(store)
        // Another object (as another process would) writes; this object's index catches up.
        let elsewhere = try RecordStore<IndexedItem>.open(at: path)
        try elsewhere.save(IndexedItem(id: "from-elsewhere", title: "b", tags: ["red"]))
        try elsewhere.delete("i3")
        #expect(try store.query(RecordQuery().filter(\.tags, contains: "red")).contains { $0.id == "from-elsewhere" })
        try expectIndexAgreesWithAScan(store)
    }

    @Test func recordsOfAnOlderModelVersionAreIndexedAsMigrated() throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let old = try RecordStore<Version1Item>.create(at: path)
        try old.save([Version1Item(id: "a", name: "first", urgent: true), Version1Item(id: "b", name: "second", urgent: false)])
        let store = try RecordStore<MigratedItem>.open(at: path)
        let urgent = try store.query(RecordQuery<MigratedItem>().filter(\.priority, equals: 5))
        #expect(urgent.map(\.id) == ["a"])
        #expect(try store.query(RecordQuery<MigratedItem>().sorted(by: \.title, descending: true)).map(\.title) == ["second", "first"])
        try store.save(MigratedItem(id: "c", title: "third", priority: 5))
        #expect(try store.query(RecordQuery<MigratedItem>().filter(\.priority, equals: 5)).map(\.id) == ["a", "c"])
    }
}

struct Version1Item: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var name: String
    var urgent: Bool
}

struct MigratedItem: IndexedRecord, Equatable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([
        .custom(from: 1, to: 2) { json, _ in
            json["title"] = json["name"]
            json["priority"] = .number(json["urgent"] == .bool(true) ? "5" : "1")
            json["name"] = nil
            json["urgent"] = nil
        }
    ])
    static let indexedFields: [IndexedField<MigratedItem>] = [.field("title", \.title), .field("priority", \.priority)]
    var id: String
    var title: String
    var priority: Int
}

/// ``IndexedItem``'s stored shape, indexed by other fields.
struct ItemIndexedByNote: IndexedRecord {
    static let modelVersion = 1
    static let indexedFields: [IndexedField<ItemIndexedByNote>] = [.field("note", \.note)]
    var id: String
    var title: String
    var priority: Int
    var due: Date?
    var tags: [String]
    var note: String
}
