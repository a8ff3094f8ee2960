import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Merging forks")
struct MergeTests {
    @Test func fastForwardThenUpToDate() throws {
        let (folder, store) = try makeStore()
        _ = folder
        let ui = try Fork("ui")
        try store.createFork(ui)
        let commit = try store.add("a", to: ui)
        #expect(try store.mergeIntoMain(from: ui) == .fastForwarded(to: commit.id))
        #expect(try store.mergeIntoMain(from: ui) == .upToDate)
        #expect(try store.mergeFromMain(into: ui) == .upToDate)
        #expect(try store.merge(from: .main, into: .main) == .upToDate)
    }

    @Test func threeWayMergeBothWays() throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("base")
        let ui = try Fork("ui")
        try store.createFork(ui)
        try store.add("on-main")
        try store.add("on-ui", to: ui)
        guard case .merged(let merge, _) = try store.mergeIntoMain(from: ui) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(merge.parents.count == 2)
        #expect(merge.trailer("Merged-Fork") == "ui")
        #expect(merge.trailer("Merge-Strategy") == "mergeable")
        #expect(try store.items() == ["base", "on-main", "on-ui"])
        // Bringing main back into the fork fast-forwards it; merging again changes nothing.
        #expect(try store.mergeFromMain(into: ui) == .fastForwarded(to: merge.id))
        #expect(try store.mergeIntoMain(from: ui) == .upToDate)
        #expect(try store.items(ui) == ["base", "on-main", "on-ui"])
        try expectFsckClean(store.path)
    }

    @Test func removalAgainstEditKeepsTheEditWhicheverSideRemoved() throws {
        for removeOnMain in [true, false] {
            let (folder, store) = try makeStore(Doc.self)
            _ = folder
            try store.save(Doc(title: "draft"))
            let ui = try Fork("ui")
            try store.createFork(ui)
            try store.remove(from: removeOnMain ? .main : ui)
            try store.save(Doc(title: "edited"), to: removeOnMain ? ui : .main)
            guard case .merged(let merge, _) = try store.mergeIntoMain(from: ui) else {
                Issue.record("expected a merge commit")
                continue
            }
            #expect(merge.trailer("Merge-Strategy") == "edit-wins-over-removal")
            #expect(try store.value() == Doc(title: "edited"))
            try expectFsckClean(store.path)
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

    @Test func lastWriterWinsPicksTheSameSideWhicheverForkMerges() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try store.save(Doc(title: "base"))
        let x = try Fork("x"), y = try Fork("y"), xCopy = try Fork("x-copy"), yCopy = try Fork("y-copy")
        try store.createFork(x)
        try store.createFork(y)
        try store.save(Doc(title: "from x"), to: x)
        try store.save(Doc(title: "from y", count: 3), to: y)
        try store.createFork(xCopy, from: x)
        try store.createFork(yCopy, from: y)
        try store.merge(from: y, into: x)
        try store.merge(from: xCopy, into: yCopy)
        let one = try store.value(in: x), two = try store.value(in: yCopy)
        #expect(one == two)
        #expect(try store.head(of: x).trailer("Merge-Strategy") == "last-writer-wins")
        try expectFsckClean(store.path)
    }

    @Test func crissCrossMergesConverge() throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("base")
        try store.add("doomed")
        let a = try Fork("a"), b = try Fork("b"), bEarly = try Fork("b-early")
        try store.createFork(a)
        try store.createFork(b)
        try store.add("a1", to: a)
        try store.update(b) { $0?.items.remove("doomed") }
        try store.add("b1", to: b)
        // Each replica merges the other's head as it was: two merges with two shared parents.
        try store.createFork(bEarly, from: b)
        try store.merge(from: a, into: b)
        try store.merge(from: bEarly, into: a)
        try store.add("a2", to: a)
        try store.add("b2", to: b)
        // Now the two heads have two merge bases: the classic criss-cross.
        let aCopy = try Fork("a-copy")
        try store.createFork(aCopy, from: a)
        try store.merge(from: b, into: a)
        try store.merge(from: aCopy, into: b)
        let expected: Set<String> = ["base", "a1", "b1", "a2", "b2"]
        #expect(try store.items(a) == expected)
        #expect(try store.items(b) == expected)
        let bases = try git("--git-dir", store.path, "merge-base", "--all", "a-copy", "b~1")
        #expect(bases.stdout.split(separator: "\n").count == 2, "the scenario must be a criss-cross")
        try expectFsckClean(store.path)
    }

    @Test func crissCrossWithLastWriterWinsConvergesToo() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try store.save(Doc(title: "base"))
        let a = try Fork("a"), b = try Fork("b"), bEarly = try Fork("b-early"), aCopy = try Fork("a-copy")
        try store.createFork(a)
        try store.createFork(b)
        try store.save(Doc(title: "a1"), to: a)
        try store.save(Doc(title: "b1"), to: b)
        try store.createFork(bEarly, from: b)
        try store.merge(from: a, into: b)
        try store.merge(from: bEarly, into: a)
        try store.save(Doc(title: "a2", count: 1), to: a)
        try store.save(Doc(title: "b2", count: 2), to: b)
        try store.createFork(aCopy, from: a)
        try store.merge(from: b, into: a)
        try store.merge(from: aCopy, into: b)
        #expect(try store.value(in: a) == store.value(in: b))
        try expectFsckClean(store.path)
    }

    @Test func unrelatedHistoriesGoThroughTheSalvage() throws {
        let folder = TemporaryFolder()
        let one = try Store<Tally>.create(at: folder.child("one"))
        let two = try Store<Tally>.create(at: folder.child("two"))
        try one.add("from-one")
        try two.add("from-two")
        // Bring the other store's history in as a fork with the git CLI.
        let fetched = try git("--git-dir", one.path, "fetch", "-q", two.path, "main:refs/heads/other")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let other = try Fork("other")
        guard case .merged(let merge, _) = try one.mergeIntoMain(from: other) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(merge.trailer("Merge-Strategy") == "salvage")
        #expect(try one.items() == ["from-one", "from-two"])
        try expectFsckClean(one.path)
    }
}
