import ForkStore
import ForkStoreMerge
import ForkStoreTestSupport
import Testing

/// Strategies running inside real store merges: reports, resolvers, trailers, convergence.
@Suite("Conflicts in store merges")
struct StoreConflictTests {
    struct Card: Resource, PropertyMergeable, Equatable {
        static let modelVersion = 1
        var title: String
        var body: String
        var likes: Int
        var tags: Set<String>

        static let mergeProperties = PropertyMerges<Card>()
            .text(\.body)
            .counter(\.likes)
            .addWinsSet(\.tags)
    }

    private func forked() throws -> (TemporaryFolder, Store<Card>, Fork) {
        let folder = TemporaryFolder()
        let store = try Store<Card>.create(at: folder.child("cards"))
        try store.save(Card(title: "Title", body: "one two three", likes: 1, tags: ["a"]))
        let phone = try Fork("phone")
        try store.createFork(phone)
        try store.update { $0?.title = "Ours"; $0?.body = "one TWO three"; $0?.likes += 2; $0?.tags.insert("b") }
        try store.update(phone) { $0?.title = "Theirs"; $0?.body = "one two THREE"; $0?.likes += 5; $0?.tags.remove("a") }
        return (folder, store, phone)
    }

    @Test func theMergeReportsEachConflictAndRecordsItInTrailers() async throws {
        let (folder, store, phone) = try forked()
        _ = folder
        guard case .merged(let commit, let conflicts) = try await store.mergeIntoMain(from: phone) else {
            Issue.record("expected a merge")
            return
        }
        let card = try #require(try await store.value())
        #expect(card.body == "one TWO THREE")
        #expect(card.likes == 8)
        #expect(card.tags == ["b"])
        #expect(conflicts.map(\.path) == ["/title"])
        #expect(conflicts.first?.ours == .string("Ours") && conflicts.first?.theirs == .string("Theirs"))
        #expect(commit.trailer("Merge-Conflicts") == "1")
        #expect(commit.trailer("Merge-Strategies") == "add-wins-set, counter, properties, text")
        let log = try await git("--git-dir", store.path, "log", "-1", "--format=%(trailers:key=Merge-Conflict,valueonly)", "main")
        #expect(log.stdout.contains("/title (last-writer-wins)"))
    }

    @Test func aResolverPassedToTheMergeDecides() throws {
        let (folder, store, phone) = try forked()
        _ = folder
        let outcome = try store.mergeIntoMain(from: phone) { conflict in
            conflict.path == "/title" ? .value(.string("Both")) : .keep
        }
        guard case .merged(_, let conflicts) = outcome else {
            Issue.record("expected a merge")
            return
        }
        #expect(try store.value()?.title == "Both")
        #expect(conflicts.first?.overriddenByApp == true)
        #expect(conflicts.first?.decision == .string("Both"))
    }

    @Test func theStoreWideResolverAppliesToEveryMerge() throws {
        let (folder, store, phone) = try forked()
        _ = folder
        let theirsWins = try Store<Card>.open(at: store.path, options: StoreOptions(conflictResolver: { _ in .theirs }))
        try theirsWins.mergeIntoMain(from: phone)
        #expect(try theirsWins.value()?.title == "Theirs")
    }

    @Test func replicasMergingInOppositeDirectionsConverge() throws {
        let (folder, store, phone) = try forked()
        _ = folder
        let mainCopy = try Fork("main-copy")
        try store.createFork(mainCopy)
        try store.mergeIntoMain(from: phone)
        try store.merge(from: mainCopy, into: phone)
        #expect(try store.value() == store.value(in: phone))
    }
}
