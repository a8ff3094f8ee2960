import ForkStore
import ForkStoreQueries
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("A store its process cannot write")
struct ReadOnlyStoreTests {
    /// The library in a process that may not write the store's folder (the stress writer,
    /// run as another user under root): records, queries, counts and history are read with
    /// no lock and no file written; every kind of write is refused as `readOnlyStore`.
    @Test(.enabled(if: ReadOnlyUser.isAvailable))
    func readsWorkAndWritesAreRefusedByName() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        do {
            let store = try await RecordStore<IndexedItem>.create(at: path)
            try await store.save((0..<30).map { IndexedItem(id: "i\($0)", title: "t\($0)", tags: $0 % 3 == 0 ? ["red"] : []) })
        }
        try ReadOnlyUser.makeReadOnly(path)
        defer { try? ReadOnlyUser.makeWritable(path) }
        let before = Set(FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])

        let (executable, arguments) = ReadOnlyUser.command(productsFolder() + "/forkstore-stress-writer", ["read", path])
        let result = try await MeasuredRun.run(executable, arguments, limit: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines == [
            "done records 30", "done red 10", "done count 10", "done commits 2",
            "done refused", "done refused", "done refused",
        ], "\(result.stdout)\(result.stderr)")
        #expect(Set(FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []) == before)
    }
}
