import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// The `async` variants, called from the main actor as app code would.
@Suite("Async variants")
struct AsyncTests {
    @MainActor @Test func valueCallsFromTheMainActor() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "one"))
        let updated = try await store.update { doc in doc?.count = 2 }
        #expect(try await store.value() == Doc(title: "one", count: 2))
        #expect(try await store.value(at: updated.id) == Doc(title: "one", count: 2))
        let removal = try await store.remove()
        #expect(try await store.value() == nil)
        try await store.restore(updated.id)
        #expect(try await store.value() == Doc(title: "one", count: 2))
        #expect(try store.history().first?.parents == [removal.id])
    }

    @MainActor @Test func recordCallsFromTheMainActor() async throws {
        let folder = TemporaryFolder()
        let store = try RecordStore<Item>.create(at: folder.child("items"))
        try await store.save(Item(id: "a"))
        try await store.save([Item(id: "b"), Item(id: "c")])
        try await store.transaction { changes in
            changes.save(Item(id: "d"))
            changes.delete("a")
        }
        #expect(try await store.count() == 3)
        #expect(try await store.record("b") == Item(id: "b"))
        #expect(try await store.record("a") == nil)
        #expect(try await store.query(where: { $0.id != "c" }, sortedBy: { $0.id > $1.id }).map(\.id) == ["d", "b"])
        try await store.delete("b")
        try await store.delete(["c"])
        #expect(try await store.records().map(\.id) == ["d"])
        await #expect(throws: StoreError.recordNotFound(id: "zz", fork: "main")) {
            try await store.update("zz") { _ in }
        }
    }
}
