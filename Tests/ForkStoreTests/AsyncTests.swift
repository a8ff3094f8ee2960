import ForkStore
import ForkStoreTestSupport
import Foundation
import ForkStoreLocks
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
        #expect(try await store.history().first?.parents == [removal.id])
    }

    /// Stores proceed independently: four writes whose changes take a second each (as a write
    /// waiting for a lock would) run side by side, and hold up no read of another store. On a
    /// shared queue of one thread per core they ran two at a time: the last two started a
    /// second after the first (2.0 s in all on two cores, against 1.1 s).
    @Test func blockedCallsHoldUpNoOtherStore() async throws {
        let folder = TemporaryFolder()
        let busy = try (0..<4).map { try Store<Tally>.create(at: folder.child("busy-\($0)")) }
        let other = try await Store<Tally>.create(at: folder.child("other"))
        try await other.save(Tally(["answered"]))
        let clock = ContinuousClock()
        let quiet = try await clock.measure { _ = try await other.value() }
        final class Starts: Sendable { let times = Locked<[ContinuousClock.Instant]>([]) }
        let starts = Starts()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in busy {
                group.addTask {
                    try await store.update { tally in
                        starts.times.withLock { $0.append(clock.now) }
                        Thread.sleep(forTimeInterval: 1)  // on ForkStore's thread, not the pool
                        tally = Tally(["slow"])
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            var answer: Tally?
            let waited = try await clock.measure { answer = try await other.value() }
            #expect(answer?.items == ["answered"])
            #expect(waited < max(.milliseconds(600), quiet * 3), "a read of another store waited \(waited) (\(quiet) alone)")
            try await group.waitForAll()
        }
        // All four ran at once: none started a second after another.
        let spread = starts.times.withLock { ($0.max() ?? clock.now) - ($0.min() ?? clock.now) }
        #expect(spread < .milliseconds(700), "the four slow changes started \(spread) apart")
    }

    @MainActor @Test func recordCallsFromTheMainActor() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Item>.create(at: folder.child("items"))
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

    /// Forks, merges, history and packing have twins too, made by scripts/async-twins.py.
    @MainActor @Test func forksMergesHistoryAndPackingFromTheMainActor() async throws {
        let folder = TemporaryFolder()
        let store = try await Store<Tally>.create(at: folder.child("tally"))
        try await store.save(Tally(["a"]))
        let phone = try Fork("phone")
        try await store.createFork(phone)
        #expect(try await store.hasFork(phone))
        try await store.update(phone) { $0?.items.insert("b") }
        try await store.update { $0?.items.insert("c") }
        #expect(try await store.divergence(of: phone, from: .main) == (1, 1))
        guard case .merged = try await store.mergeIntoMain(from: phone) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(try await store.value()?.items == ["a", "b", "c"])
        #expect(try await store.mergeFromMain(into: phone) == .fastForwarded(to: try await store.head().id))
        #expect(try await store.history().count == 5)
        #expect(try await store.forks().map(\.name) == ["main", "phone"])
        try await store.deleteFork(phone)
        #expect(try await store.pack() > 0)
        #expect(try await store.replayHistory().firstFailure == nil)
        try await expectFsckClean(folder.child("tally"))
    }

    /// A task cancelled before a call starts gets `CancellationError` and the call never runs.
    @Test func aCancelledTaskRunsNoCall() async throws {
        let folder = TemporaryFolder()
        let store = try await Store<Tally>.create(at: folder.child("tally"))
        let before = try await store.head()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.save(Tally(["never"]))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await store.head() == before)
    }

    /// An import cancelled while it runs stops between segments: what it stored is whole,
    /// the rest is not read, and the store stays sound.
    @Test func aCancelledImportStopsBetweenSegments() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("items")
        let store = try await RecordStore<Item>.create(at: path)
        let offered = 200_000
        let started = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var next = 0
            return try await store.importRecords(batchSize: 100, progress: { _ in started.continuation.yield() }) {
                guard next < offered else { return nil }
                defer { next += 1 }
                return Item(id: "item-\(next)")
            }
        }
        var firstSegment = started.stream.makeAsyncIterator()
        _ = await firstSegment.next()
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        let stored = try await store.count()
        #expect(stored > 0 && stored < offered, "stored \(stored) of \(offered)")
        #expect(try await store.records().count == stored)
        try await expectFsckClean(path)
    }
}
