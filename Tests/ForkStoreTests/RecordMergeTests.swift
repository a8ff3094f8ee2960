import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// A record that merges itself: tags by add-wins union, title last-writer-wins.
struct Card: Resource, Identifiable, Mergeable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
    var tags: [String]

    func merged(with subordinate: Card, ancestor: Card) throws -> Card {
        let tally = try Tally(Set(tags)).merged(with: Tally(Set(subordinate.tags)), ancestor: Tally(Set(ancestor.tags)))
        let title = title == ancestor.title ? subordinate.title : title
        return Card(id: id, title: title, tags: tally.items.sorted())
    }
}

@Suite("Record merges")
struct RecordMergeTests {
    private func forked<R>(_ type: R.Type, _ seed: [R]) throws -> (TemporaryFolder, RecordStore<R>, Fork) {
        let folder = TemporaryFolder()
        let store = try RecordStore<R>.create(at: folder.child("records"))
        try store.save(seed)
        let ui = try Fork("ui")
        try store.createFork(ui)
        return (folder, store, ui)
    }

    @Test func changesToDifferentRecordsBothLand() async throws {
        let (folder, films, ui) = try forked(Film.self, (0..<50).map { Film(id: "f\($0)", title: "T\($0)", year: $0) })
        _ = folder
        try await films.save(Film(id: "f1", title: "main edit", year: 1))
        try await films.delete("f2")
        try await films.save(Film(id: "new-main", title: "added on main", year: 100), to: .main)
        try await films.save(Film(id: "f3", title: "ui edit", year: 3), to: ui)
        try await films.save(Film(id: "new-ui", title: "added on ui", year: 101), to: ui)
        guard case .merged(let commit, let conflicts) = try await films.mergeIntoMain(from: ui) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(conflicts.isEmpty)
        #expect(commit.parents.count == 2)
        #expect(try await films.record("f1")?.title == "main edit")
        #expect(try await films.record("f2") == nil)
        #expect(try await films.record("f3")?.title == "ui edit")
        #expect(try await films.record("new-ui") != nil)
        #expect(try await films.record("new-main") != nil)
        #expect(try await films.count() == 51)
        #expect(try await films.mergeIntoMain(from: ui) == .upToDate)
        try await expectFsckClean(films.path)
    }

    @Test func editAgainstDeleteKeepsTheEditEitherWay() throws {
        for deleteOnMain in [true, false] {
            let (folder, films, ui) = try forked(Film.self, [Film(id: "x", title: "draft", year: 1)])
            _ = folder
            try films.delete("x", from: deleteOnMain ? .main : ui)
            try films.save(Film(id: "x", title: "edited", year: 2), to: deleteOnMain ? ui : .main)
            guard case .merged(_, let conflicts) = try films.mergeIntoMain(from: ui) else {
                Issue.record("expected a merge commit")
                continue
            }
            #expect(try films.record("x")?.title == "edited")
            #expect(conflicts.map(\.path) == ["/x"] && conflicts.first?.strategy == "edit-wins-over-removal")
        }
    }

    @Test func bothEditingOneRecordUsesItsMergeOrLastWriterWins() throws {
        let (folder, cards, ui) = try forked(Card.self, [Card(id: "c", title: "Plan", tags: ["a"])])
        _ = folder
        try cards.save(Card(id: "c", title: "Plan B", tags: ["a", "main"]))
        try cards.save(Card(id: "c", title: "Plan", tags: ["ui"]), to: ui)
        try cards.mergeIntoMain(from: ui)
        #expect(try cards.record("c") == Card(id: "c", title: "Plan B", tags: ["main", "ui"]))

        let (folder2, films, ui2) = try forked(Film.self, [Film(id: "f", title: "base", year: 0)])
        _ = folder2
        try films.save(Film(id: "f", title: "main", year: 1))
        try films.save(Film(id: "f", title: "ui", year: 2), to: ui2)
        guard case .merged(_, let conflicts) = try films.mergeIntoMain(from: ui2) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(conflicts.map(\.strategy) == ["last-writer-wins"])
        #expect(["main", "ui"].contains(try films.record("f")?.title ?? ""))
    }

    @Test func replicasMergingInOppositeDirectionsAndCrissCrossConverge() async throws {
        let (folder, cards, a) = try forked(Card.self, [Card(id: "c", title: "t", tags: []), Card(id: "d", title: "t", tags: [])])
        _ = folder
        let b = try Fork("b"), bEarly = try Fork("b-early"), aCopy = try Fork("a-copy")
        try await cards.createFork(b)
        try await cards.save(Card(id: "c", title: "t", tags: ["a1"]), to: a)
        try await cards.save(Card(id: "c", title: "t", tags: ["b1"]), to: b)
        try await cards.save(Card(id: "d", title: "from b", tags: []), to: b)
        try await cards.createFork(bEarly, at: try cards.head(of: b).id)
        try await cards.merge(from: a, into: b)
        try await cards.merge(from: bEarly, into: a)
        try await cards.save(Card(id: "c", title: "t", tags: ["a1", "b1", "a2"]), to: a)
        try await cards.save(Card(id: "e", title: "new", tags: []), to: b)
        try await cards.createFork(aCopy, at: try cards.head(of: a).id)
        try await cards.merge(from: b, into: a)
        try await cards.merge(from: aCopy, into: b)
        #expect(try await cards.records(in: a).sorted { $0.id < $1.id } == cards.records(in: b).sorted { $0.id < $1.id })
        #expect(Set(try await cards.record("c", in: a)?.tags ?? []) == ["a1", "a2", "b1"])
        #expect(try await cards.record("d", in: a)?.title == "from b")
        try await expectFsckClean(cards.path)
    }

    @Test func unrelatedCollectionsMergeRecordByRecord() async throws {
        let folder = TemporaryFolder()
        let one = try await RecordStore<Card>.create(at: folder.child("one"))
        let two = try await RecordStore<Card>.create(at: folder.child("two"))
        try await one.save([Card(id: "only-one", title: "1", tags: []), Card(id: "both", title: "one", tags: ["x"])])
        try await two.save([Card(id: "only-two", title: "2", tags: []), Card(id: "both", title: "two", tags: ["y"])])
        let fetched = try await git("--git-dir", one.path, "fetch", "-q", two.path, "main:refs/heads/other")
        #expect(fetched.status == 0)
        try await one.mergeIntoMain(from: try Fork("other"))
        #expect(try await Set(one.records().map(\.id)) == ["only-one", "only-two", "both"])
        try await expectFsckClean(one.path)
    }
}
