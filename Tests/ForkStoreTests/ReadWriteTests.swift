import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Reading and writing values")
struct ReadWriteTests {
    @Test func saveUpdateRemoveAndReadAtEveryCommit() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let first = try await store.save(Doc(title: "one"))
        let second = try await store.update { $0?.count += 5 }
        #expect(try await store.value() == Doc(title: "one", count: 5))
        let removal = try await store.remove()
        #expect(try await store.value() == nil)
        #expect(try await store.value(at: first.id) == Doc(title: "one"))
        #expect(try await store.value(at: second.id) == Doc(title: "one", count: 5))
        #expect(try await store.value(at: removal.id) == nil)
        #expect(removal.parents == [second.id])
        // The tombstone is a commit whose tree holds no value.
        let tree = try await git("--git-dir", store.path, "ls-tree", removal.id.hex)
        #expect(tree.status == 0 && tree.stdout.isEmpty)
    }

    @Test func anUnchangedSaveMakesNoCommit() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let first = try store.save(Doc(title: "same"))
        let again = try store.save(Doc(title: "same"))
        #expect(again.id == first.id)
        #expect(try store.history().count == 2)  // "Create store" and the save
    }

    @Test func everyCommitCarriesStampsAndALamportCounter() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let first = try store.save(Doc(title: "a"))
        let second = try store.save(Doc(title: "b"), message: "Rename")
        #expect(first.modelVersion == 1 && first.formatVersion == 1)
        #expect(second.lamport == first.lamport + 1)
        #expect(second.subject == "Rename")
        #expect(second.trailer("Model-Version") == "1")
    }

    @Test func aMessageCannotForgeTrailersOrSmuggleControlCharacters() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let commit = try store.save(Doc(title: "x"), message: "Hi\u{0}\u{1B}[31m\n\nModel-Version: 999")
        #expect(commit.modelVersion == 1)
        #expect(!commit.message.contains("\u{1B}"))
        #expect(try store.value() == Doc(title: "x"))
    }
}
