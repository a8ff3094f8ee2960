import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// What a reader refuses, what it ignores and keeps, and that reading is a function of the
/// stored bytes (Schema/FORMAT.md: reader strictness, migrations).
@Suite("Reader strictness")
struct ReaderStrictnessTests {
    typealias Card = FormatContractTests.Card

    @Test(arguments: [
        #"{"format": "forkstore", "formatVersion": 1, "formatVersion": 1, "resource": "value"}"#,
        #"{"format": "forkstore", "formatVersion": 0, "resource": "value"}"#,
        #"{"format": "forkstore", "formatVersion": -1, "resource": "value"}"#,
        #"{"format": "forkstore", "formatVersion": 1, "resource": "blobs"}"#,
        #"{"format": "forkstore", "formatVersion": 1}"#,
        #"{"format": "forkstore", "formatVersion": "1", "resource": "value"}"#,
        #"{"format": "forkstore", "formatVersion": 1, "resource": "value""#,
    ])
    func aManifestAgainstItsSchemaIsRefused(_ manifest: String) throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: store.path + "/forkstore.json"))
        #expect {
            try Store<Doc>.open(at: store.path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .notAStore, let reason = error.reason else { return false }
            return reason.contains("manifest")
        }
    }

    @Test func unknownManifestMembersAreIgnored() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let manifest = #"{"format": "forkstore", "formatVersion": 1, "resource": "value", "x-app": {"note": 1}}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: store.path + "/forkstore.json"))
        try Store<Doc>.open(at: store.path).save(Doc(title: "still a store"))
    }

    @Test func entriesTheLayoutDoesNotNameAreIgnoredAndKept() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Card>.create(at: folder.child("store"))
        try await store.save([Card(id: "a", title: "A"), Card(id: "b", title: "B")])
        try await addByHand([
            "README": "not a record\n", "records/00/00/notes.txt": "not a record either\n",
            "records/zz/00/x.json": "{}\n", "records/README.md": "hello\n",
        ], to: store.path)
        #expect(try await store.count() == 2)
        #expect(try await Set(store.records().map(\.id)) == ["a", "b"])
        try await store.save(Card(id: "c", title: "C"))
        #expect(try await store.count() == 3)
        let tree = try await git("--git-dir", store.path, "ls-tree", "-r", "--name-only", "main").stdout
        for kept in ["README", "records/00/00/notes.txt", "records/zz/00/x.json", "records/README.md"] {
            #expect(tree.contains(kept + "\n"), "\(kept) was dropped")
        }
        try await store.delete("c")
        #expect(try await store.count() == 2)
    }

    @Test func aRecordAtAPathItsIdDoesNotGiveIsAProblemNotARecord() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Card>.create(at: folder.child("store"))
        try await store.save(Card(id: "a", title: "A"))
        let path = try #require(try await git("--git-dir", store.path, "ls-tree", "-r", "--name-only", "main").stdout
            .split(separator: "\n").first.map(String.init))
        let blob = try await git("--git-dir", store.path, "show", "main:\(path)").stdout
        // The same blob again at the path of id "b": a copy, not a second record.
        let other = RecordPath(id: "b").description
        try await addByHand([other: blob], to: store.path)
        let (records, problems) = try await store.recordsAndProblems()
        #expect(records.map(\.id) == ["a"])
        #expect(problems.map(\.path) == [other])
        #expect(throws: StoreError.self) { try store.record("b") }
        #expect(try await store.record("a")?.title == "A")
    }

    /// The envelope's id, the path and the record's own id agree, and the envelope's
    /// `modelVersion` is a model version; otherwise the record is damaged: reported by a
    /// listing, never listed (before, a record whose own id differed was listed under it).
    @Test(arguments: [
        #"{"id":"b","modelVersion":1,"record":{"id":"phantom","title":"B"}}"#,
        #"{"id":"b","modelVersion":99999999999999999999,"record":{"id":"b","title":"B"}}"#,
        #"{"id":"b","modelVersion":0,"record":{"id":"b","title":"B"}}"#,
        #"{"id":"b","modelVersion":"1","record":{"id":"b","title":"B"}}"#,
    ])
    func aRecordWithAnEnvelopeThatDisagreesIsAProblemNotARecord(_ text: String) async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Card>.create(at: folder.child("store"))
        try await store.save(Card(id: "a", title: "A"))
        let blob = String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
        let path = RecordPath(id: "b").description
        try await addByHand([path: blob], to: store.path)
        let (records, problems) = try await store.recordsAndProblems()
        #expect(records.map(\.id) == ["a"])
        #expect(problems.map(\.path) == [path])
        #expect(throws: StoreError.self) { try store.record("b") }
    }

    /// An `update` that changes the record's id would store it under the old id's path.
    @Test func anUpdateThatChangesTheIdIsRefused() throws {
        let folder = TemporaryFolder()
        let store = try RecordStore<Card>.create(at: folder.child("store"))
        try store.save(Card(id: "a", title: "A"))
        let head = try store.head()
        #expect {
            try store.update("a") { $0.id = "b" }
        } throws: { error in
            guard let error = error as? StoreError, error.code == .encodingFailed, let reason = error.reason else { return false }
            return reason.contains("'b'")
        }
        #expect(try store.head() == head)
        #expect(try store.records().map(\.id) == ["a"])
    }

    @Test func filesTheFormatDoesNotNameInTheGitDirectoryAreLeftAlone() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let foreign = ["FETCH_HEAD": "0123456789012345678901234567890123456789\t\tbranch 'main'\n", "my-app-state.json": "{}\n"]
        for (name, content) in foreign {
            try Data(content.utf8).write(to: URL(fileURLWithPath: store.path + "/" + name))
        }
        for index in 0..<40 { try store.save(Doc(title: "v\(index)")) }
        _ = try store.pack()
        for (name, content) in foreign {
            #expect(FileManager.default.contents(atPath: store.path + "/" + name) == Data(content.utf8))
        }
    }

    struct CardV2: Resource, Identifiable, Equatable {
        static let modelVersion = 2
        static let migrationPlan = MigrationPlan([
            .custom(from: 1, to: 2) { json, context in
                json["migratedFor"] = context.recordID.map(JSONValue.string)
                json["fromVersion"] = .number(String(context.fromVersion))
            }
        ])
        var id: String
        var title: String
        var migratedFor: String?
        var fromVersion: Int?
    }

    @Test func aMigratedRecordReadsTheSameWhereverAndWheneverItIsRead() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let old = try await RecordStore<Card>.create(at: path)
        try await old.save(Card(id: "x/1", title: "old"))
        let store = try await RecordStore<CardV2>.open(at: path)
        let first = try await store.record("x/1")
        #expect(first == CardV2(id: "x/1", title: "old", migratedFor: "x/1", fromVersion: 1))
        try await Task.sleep(for: .milliseconds(1100))
        try await store.save(CardV2(id: "other", title: "new"))
        let fork = try Fork("later")
        try await store.createFork(fork)
        try await store.save(CardV2(id: "another", title: "new"), to: fork)
        #expect(try await store.record("x/1") == first)
        #expect(try await store.record("x/1", in: fork) == first)
        #expect(try await store.records().first { $0.id == "x/1" } == first)
    }
}
