import ForkStore
import ForkStoreMerge
import ForkStoreTestSupport
import Foundation
import Testing

/// What a user coming from Forked expects of merges: the later write wins, concurrent events
/// all count, and a removal is an edit like any other.
@Suite("The later write wins")
struct LaterWriteWinsTests {
    struct Doc: Resource, Equatable {
        static let modelVersion = 1
        var title: String
    }

    struct Count: Resource, PropertyMergeable, Equatable {
        static let modelVersion = 1
        var events: Int
        static let mergeProperties = PropertyMerges<Count>().counter(\.events)
    }

    struct Tags: Resource, Equatable {
        static let modelVersion = 1
        var tags: Set<String>
    }

    @Test func theLaterWriteWinsAcrossForksEveryTime() throws {
        for laterOnMain in [true, false] {
            for _ in 0..<20 {
                let store = try Store<Doc>.inMemory()
                try store.save(Doc(title: "base"))
                let fork = try Fork("fork")
                try store.createFork(fork)
                if laterOnMain {
                    try store.save(Doc(title: "earlier"), to: fork)
                    try store.save(Doc(title: "later"))
                } else {
                    try store.save(Doc(title: "earlier"))
                    try store.save(Doc(title: "later"), to: fork)
                }
                try store.mergeIntoMain(from: fork)
                #expect(try store.value() == Doc(title: "later"))
            }
        }
    }

    @Test func oneEditNowBeatsManyEditsLongAgo() throws {
        let clock = TestClock()
        let store = try Store<Doc>.inMemory(options: clock.options)
        try store.save(Doc(title: "base"))
        let busy = try Fork("busy"), recent = try Fork("recent")
        try store.createFork(busy)
        try store.createFork(recent)
        for index in 1...10 {
            try store.save(Doc(title: "busy \(index)"), to: busy)
        }
        clock.advance(3600)
        try store.save(Doc(title: "recent"), to: recent)
        try store.merge(from: busy, into: recent)
        #expect(try store.value(in: recent) == Doc(title: "recent"))
        // A fork that merged other work after its last edit does not become "later" by that.
        let other = try Fork("other")
        try store.createFork(other)
        try store.save(Doc(title: "other"), to: other)
        clock.advance(60)
        try store.save(Doc(title: "latest"), to: busy)
        try store.merge(from: other, into: recent)
        try store.merge(from: busy, into: recent)
        #expect(try store.value(in: recent) == Doc(title: "latest"))
    }

    @Test func equalEditsInTheSameMillisecondStayTwoCommits() throws {
        let clock = TestClock()  // stands still
        let store = try Store<Doc>.inMemory(options: clock.options)
        try store.save(Doc(title: "base"))
        let one = try Fork("one"), two = try Fork("two")
        try store.createFork(one)
        try store.createFork(two)
        let first = try store.save(Doc(title: "same"), to: one)
        let second = try store.save(Doc(title: "same"), to: two)
        #expect(first.id != second.id)
        #expect(first.clock < second.clock && first.date == second.date)
        guard case .merged = try store.merge(from: two, into: one) else {
            Issue.record("two distinct commits merge")
            return
        }
    }

    @Test func countersCountEveryEvent() throws {
        let store = try Store<Count>.inMemory()
        try store.save(Count(events: 4))
        let phone = try Fork("phone")
        try store.createFork(phone)
        try store.save(Count(events: 10))
        try store.save(Count(events: 10), to: phone)
        try store.mergeIntoMain(from: phone)
        #expect(try store.value() == Count(events: 16))
    }

    @Test func fourTasksIncrementingOnTheirOwnForksLoseNothing() async throws {
        let store = try await Store<Count>.inMemory()
        try await store.save(Count(events: 0))
        let forks = try (1...4).map { try Fork("task-\($0)") }
        for fork in forks { try await store.createFork(fork) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for fork in forks {
                group.addTask {
                    for _ in 1...10 {
                        try store.update(fork) { $0?.events += 1 }
                        try store.mergeFromMain(into: fork)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await store.mergeAllForks()
        #expect(try await store.value() == Count(events: 40))
    }

    @Test(arguments: [RemovalPolicy.latestWins, .editWins])
    func aRemovalAgainstAnEditFollowsThePolicy(_ policy: RemovalPolicy) throws {
        for removalIsLater in [true, false] {
            var options = StoreOptions()
            options.removalPolicy = policy
            let store = try Store<Doc>.inMemory(options: options)
            try store.save(Doc(title: "draft"))
            let phone = try Fork("phone")
            try store.createFork(phone)
            let edit: Commit
            if removalIsLater {
                edit = try store.save(Doc(title: "edited"), to: phone)
                try store.remove()
            } else {
                try store.remove()
                edit = try store.save(Doc(title: "edited"), to: phone)
            }
            guard case .merged(let merge, let conflicts) = try store.mergeIntoMain(from: phone) else {
                Issue.record("expected a merge")
                continue
            }
            let removed = policy == .latestWins && removalIsLater
            #expect(try store.value() == (removed ? nil : Doc(title: "edited")))
            #expect(merge.trailer("Merge-Strategy") == (removed ? "removal-wins" : "edit-wins-over-removal"))
            #expect(conflicts.count == 1 && conflicts[0].path.isEmpty)
            // The losing side stays in the history.
            try store.restore(edit.id)
            #expect(try store.value() == Doc(title: "edited"))
        }
    }

    @Test(arguments: [RemovalPolicy.latestWins, .editWins])
    func aRecordRemovalAgainstAnEditFollowsThePolicy(_ policy: RemovalPolicy) throws {
        struct Note: Resource, Identifiable, Equatable {
            static let modelVersion = 1
            var id: String
            var text: String
        }
        var options = StoreOptions()
        options.removalPolicy = policy
        let store = try RecordStore<Note>.inMemory(options: options)
        try store.save(Note(id: "n", text: "draft"))
        let phone = try Fork("phone")
        try store.createFork(phone)
        try store.save(Note(id: "n", text: "edited"), to: phone)
        try store.delete("n")
        guard case .merged(_, let conflicts) = try store.mergeIntoMain(from: phone) else {
            Issue.record("expected a merge")
            return
        }
        #expect(try store.record("n") == (policy == .latestWins ? nil : Note(id: "n", text: "edited")))
        #expect(conflicts.map(\.path) == ["/n"])
    }

    @Test func aSetInAnotherOrderMakesNoCommit() async throws {
        let folder = TemporaryFolder()
        let store = try await Store<Tags>.create(at: folder.child("tags"))
        let tags: Set<String> = ["red", "green", "blue", "gold", "grey", "pink", "teal"]
        try await store.save(Tags(tags: tags))
        // Write the same set with its array reversed, as another process might order it.
        let shown = try await git("--git-dir", store.path, "show", "main:value.json").stdout
        let reversed = shown.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: " ", with: "")
        let order = try JSONDecoder().decode([String: [String]].self, from: Data(reversed.utf8))["tags"] ?? []
        let json = "{\"tags\":[" + order.reversed().map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        let blob = try await git("--git-dir", store.path, "hash-object", "-w", "--stdin", input: json).stdout.trimmed
        let tree = try await git("--git-dir", store.path, "mktree", input: "100644 blob \(blob)\tvalue.json\n").stdout.trimmed
        let head = try await store.head()
        let message = "Reordered\n\nModel-Version: 1\nFormat-Version: 1\n"
        let commit = try await git("--git-dir", store.path, "commit-tree", tree, "-p", head.id.hex, "-m", message).stdout.trimmed
        try await git("--git-dir", store.path, "update-ref", "refs/heads/main", commit)
        let before = try await store.head()
        #expect(try await store.save(Tags(tags: tags)).id == before.id)
        #expect(try await store.update { $0?.tags.insert("red") }.id == before.id)
        #expect(try await store.head().id == before.id)
    }

    @Test func theClockStaysMonotonicWhenTheWallClockStepsBack() throws {
        let clock = TestClock()
        let store = try Store<Doc>.inMemory(options: clock.options)
        var last = try store.save(Doc(title: "0")).clock
        for step in 1...6 {
            clock.advance(step.isMultiple(of: 2) ? -3600 : 0.001)
            let next = try store.save(Doc(title: "\(step)")).clock
            #expect(next > last, "step \(step): \(next) after \(last)")
            last = next
        }
        // A fork made at an old commit still writes after everything the store issued.
        let old = try Fork("old")
        try store.createFork(old, at: store.history().last?.id)
        #expect(try store.save(Doc(title: "old"), to: old).clock > last)
    }

    /// Puts a commit of `{"title": title}` with `message` on top of `fork`, as a peer wrote it
    /// with git's plumbing, and returns its id.
    private func commitAsAPeer(_ message: String, title: String, on fork: Fork, in store: Store<Doc>) async throws -> String {
        let head = try await store.head(of: fork)
        let blob = try await git("--git-dir", store.path, "hash-object", "-w", "--stdin", input: "{\"title\":\"\(title)\"}").stdout.trimmed
        let tree = try await git("--git-dir", store.path, "mktree", input: "100644 blob \(blob)\tvalue.json\n").stdout.trimmed
        let made = try await git("--git-dir", store.path, "commit-tree", tree, "-p", head.id.hex, "-m", message).stdout.trimmed
        try await git("--git-dir", store.path, "update-ref", "refs/heads/\(fork.name)", made)
        return made
    }

    @Test func aCommitFromTheFarFutureIsClampedAndReported() async throws {
        let clock = TestClock()
        let store = try await Store<Doc>.inMemory(options: clock.options)
        try await store.save(Doc(title: "base"))
        let future = try Fork("future")
        try await store.createFork(future)
        // A replica whose clock is ten years ahead wrote this commit.
        let head = try await store.head(of: future)
        let tenYears: Int64 = 10 * 365 * 24 * 3600 * 1000
        let ahead = HybridTime(milliseconds: head.clock.milliseconds + tenYears)
        let message = "From the future\n\nModel-Version: 1\nFormat-Version: 1\nClock: \(ahead)\nReplica: ffffffffffffffff\n"
        let made = try await commitAsAPeer(message, title: "future", on: future, in: store)
        clock.advance(1)
        try await store.save(Doc(title: "local"))
        guard case .merged(let merge, _) = try await store.mergeIntoMain(from: future) else {
            Issue.record("expected a merge")
            return
        }
        #expect(merge.trailer("Clock-Clamped")?.hasPrefix(made) == true)
        #expect(merge.clock.milliseconds < ahead.milliseconds)
        // Later local writes keep ordering after each other, near the wall clock.
        var last = merge.clock
        for index in 1...3 {
            clock.advance(1)
            let next = try await store.save(Doc(title: "after \(index)")).clock
            #expect(next > last && next.milliseconds <= Int64(clock.date.timeIntervalSince1970 * 1000) + 86_400_000)
            last = next
        }
    }

    /// A peer's commit at the top of the Lamport and counter ranges: the commit on top of it
    /// is still later, and its trailers still within range (every reader takes it).
    @Test func aCommitAtTheTopOfTheCounterRangesIsFollowedWithinRange() async throws {
        let clock = TestClock()
        let store = try await Store<Doc>.inMemory(options: clock.options)
        try await store.save(Doc(title: "base"))
        let top = try Fork("top")
        try await store.createFork(top)
        let now = Int64(clock.date.timeIntervalSince1970 * 1000)
        let message = """
            At the top

            Model-Version: 1
            Format-Version: 1
            Lamport: 999999999999999
            Clock: \(now)-999999999
            Replica: ffffffffffffffff

            """
        _ = try await commitAsAPeer(message, title: "top", on: top, in: store)
        try await store.save(Doc(title: "local"))
        guard case .merged(let merge, _) = try await store.mergeIntoMain(from: top) else {
            Issue.record("expected a merge")
            return
        }
        #expect(merge.clock == HybridTime(milliseconds: now + 1))
        #expect(merge.trailer("Lamport") == "999999999999999")
        let next = try await store.save(Doc(title: "after"))
        #expect(next.trailer("Lamport") == "999999999999999" && next.clock > merge.clock)
    }

    @Test func anInMemoryStoreLeavesNothingBehind() throws {
        var store: Store<Doc>? = try Store<Doc>.inMemory()
        let path = try #require(store?.path)
        try store?.save(Doc(title: "x"))
        #expect(FileManager.default.fileExists(atPath: path))
        store = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
