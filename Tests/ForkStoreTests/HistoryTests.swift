import ForkStore
import ForkStoreTestSupport
import Testing

@Suite("History")
struct HistoryTests {
    @Test func differencesBetweenCommits() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let first = try store.save(Doc(title: "one", count: 1))
        let second = try store.save(Doc(title: "two", count: 1))
        let differences = try store.differences(from: first.id, to: second.id)
        #expect(differences.count == 1)
        #expect(differences.first?.kind == .changed)
        #expect(differences.first?.old == .string("one") && differences.first?.new == .string("two"))
        #expect(differences.first?.pointer == "/title")
        let removal = try store.remove()
        let gone = try store.differences(from: second.id, to: removal.id)
        #expect(gone.count == 1 && gone[0].kind == .removed && gone[0].path.isEmpty)
    }

    @Test func restoreWritesAnEarlierValueAsANewCommit() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let first = try store.save(Doc(title: "keep me"))
        try store.save(Doc(title: "oops"))
        let restored = try store.restore(first.id)
        #expect(try store.value() == Doc(title: "keep me"))
        #expect(restored.subject.hasPrefix("Restore value from"))
        #expect(try store.history().count == 4)
    }
}

