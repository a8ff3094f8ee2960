import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Merging forks")
struct MergeTests {
    @Test func removalAgainstEditKeepsTheEditWhicheverSideRemoved() async throws {
        for removeOnMain in [true, false] {
            let (folder, store) = try makeStore(Doc.self)
            _ = folder
            try await store.save(Doc(title: "draft"))
            let ui = try Fork("ui")
            try await store.createFork(ui)
            try await store.remove(from: removeOnMain ? .main : ui)
            try await store.save(Doc(title: "edited"), to: removeOnMain ? ui : .main)
            guard case .merged(let merge, _) = try await store.mergeIntoMain(from: ui) else {
                Issue.record("expected a merge commit")
                continue
            }
            #expect(merge.trailer("Merge-Strategy") == "edit-wins-over-removal")
            #expect(try await store.value() == Doc(title: "edited"))
            try await expectFsckClean(store.path)
        }
    }

    @Test func aRemovalOnOneSideOnlyIsKept() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try store.save(Doc(title: "draft"))
        let ui = try Fork("ui")
        try store.createFork(ui)
        try store.remove(from: ui)
        try store.save(Doc(title: "draft", count: 0), to: .main)  // unchanged: no commit
        #expect(try store.mergeIntoMain(from: ui) == .fastForwarded(to: try store.head(of: ui).id))
        #expect(try store.value() == nil)
    }

    @Test func lastWriterWinsPicksTheSameSideWhicheverForkMerges() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "base"))
        let x = try Fork("x"), y = try Fork("y"), xCopy = try Fork("x-copy"), yCopy = try Fork("y-copy")
        try await store.createFork(x)
        try await store.createFork(y)
        try await store.save(Doc(title: "from x"), to: x)
        try await store.save(Doc(title: "from y", count: 3), to: y)
        try await store.createFork(xCopy, from: x)
        try await store.createFork(yCopy, from: y)
        try await store.merge(from: y, into: x)
        try await store.merge(from: xCopy, into: yCopy)
        let one = try await store.value(in: x), two = try await store.value(in: yCopy)
        #expect(one == two)
        #expect(try await store.head(of: x).trailer("Merge-Strategy") == "last-writer-wins")
        try await expectFsckClean(store.path)
    }

    @Test func crissCrossWithLastWriterWinsConvergesToo() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "base"))
        let a = try Fork("a"), b = try Fork("b"), bEarly = try Fork("b-early"), aCopy = try Fork("a-copy")
        try await store.createFork(a)
        try await store.createFork(b)
        try await store.save(Doc(title: "a1"), to: a)
        try await store.save(Doc(title: "b1"), to: b)
        try await store.createFork(bEarly, from: b)
        try await store.merge(from: a, into: b)
        try await store.merge(from: bEarly, into: a)
        try await store.save(Doc(title: "a2", count: 1), to: a)
        try await store.save(Doc(title: "b2", count: 2), to: b)
        try await store.createFork(aCopy, from: a)
        try await store.merge(from: b, into: a)
        try await store.merge(from: aCopy, into: b)
        #expect(try await store.value(in: a) == store.value(in: b))
        try await expectFsckClean(store.path)
    }
}
