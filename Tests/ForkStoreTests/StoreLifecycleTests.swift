import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Creating and opening stores")
struct StoreLifecycleTests {
    @Test func createThenOpenReadsTheSameValue() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("a.store")
        let store = try await Store<Doc>.create(at: path)
        #expect(try await store.value() == nil)
        try await store.save(Doc(title: "hello", count: 2))
        let reopened = try await Store<Doc>.open(at: path)
        #expect(try await reopened.value() == Doc(title: "hello", count: 2))
        #expect(try await reopened.forks() == [.main])
        try await expectFsckClean(path)
    }

    @Test func createInAnEmptyFolderWorksButNotInABusyOne() throws {
        let folder = TemporaryFolder()
        let empty = folder.child("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        _ = try Store<Doc>.create(at: empty)
        #expect(throws: StoreError.storeAlreadyExists(path: empty)) { try Store<Doc>.create(at: empty) }
        let busy = folder.child("busy")
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: busy + "/keep.txt", contents: Data("mine".utf8))
        #expect(throws: StoreError.storeAlreadyExists(path: busy)) { try Store<Doc>.create(at: busy) }
        #expect(FileManager.default.contents(atPath: busy + "/keep.txt") == Data("mine".utf8))
    }

    @Test func openingNothingIsStoreNotFound() throws {
        let folder = TemporaryFolder()
        let path = folder.child("missing")
        #expect(throws: StoreError.storeNotFound(path: path)) { try Store<Doc>.open(at: path) }
    }

    @Test func aFolderThatIsNotAStoreIsRefused() async throws {
        let folder = TemporaryFolder()
        let plain = folder.child("plain")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        #expect {
            try Store<Doc>.open(at: plain)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .notAStore else { return false }
            return error.path == plain
        }
        // A bare git repository without a manifest is not a store either.
        let bare = folder.child("bare.git")
        try await git("init", "--bare", "-q", bare)
        #expect {
            try Store<Doc>.open(at: bare)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .notAStore, let reason = error.reason else { return false }
            return reason.contains("forkstore.json")
        }
        // A file is not a store.
        let file = folder.child("file")
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        #expect(throws: StoreError.self) { try Store<Doc>.open(at: file) }
    }

    @Test func aStoreOfANewerFormatIsRefused() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let manifest = store.path + "/forkstore.json"
        let newer = #"{"format": "forkstore", "formatVersion": 7, "resource": "value"}"#
        try Data(newer.utf8).write(to: URL(fileURLWithPath: manifest))
        #expect(throws: StoreError.newerFormatVersion(found: 7, supported: FormatVersion.current)) {
            try Store<Doc>.open(at: store.path)
        }
    }

    @Test func theManifestMatchesItsSchemaShape() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let bytes = try #require(FileManager.default.contents(atPath: store.path + "/forkstore.json"))
        let json = try CanonicalJSON.parse(Array(bytes))
        #expect(json["format"] == .string("forkstore"))
        #expect(json["formatVersion"] == .number("1"))
        #expect(json["resource"] == .string("value"))
        // Written in canonical form.
        #expect(CanonicalJSON.serialize(json) == Array(bytes))
        // And the checked-in JSON Schema requires exactly these members.
        let schemaPath = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schema/manifest.schema.json").path
        let schema = try CanonicalJSON.parse(Array(try #require(FileManager.default.contents(atPath: schemaPath))))
        #expect(schema["required"] == .array([.string("format"), .string("formatVersion"), .string("resource")]))
        guard case .object(let members) = json, case .object(let properties)? = schema["properties"] else {
            Issue.record("manifest or schema is not an object")
            return
        }
        #expect(members.map(\.key) .sorted() == properties.map(\.key).sorted())
    }

    /// The hook other modules keep their per-store state in (the query index) is keyed by type:
    /// each type, generic specializations included, has its own companion, made once.
    @Test func companionsAreKeptOnePerType() throws {
        final class Box<Tag>: Sendable { let made: Int; init(_ made: Int) { self.made = made } }
        enum First {}
        enum Second {}
        let store = try Store<Doc>.inMemory()
        var made = 0
        let first = try store.engine.companion(of: Box<First>.self) { made += 1; return Box(made) }
        let second = try store.engine.companion(of: Box<Second>.self) { made += 1; return Box(made) }
        let again = try store.engine.companion(of: Box<First>.self) { made += 1; return Box(made) }
        #expect(first.made == 1 && second.made == 2)
        #expect(again === first)
        #expect(made == 2)
    }
}
