@testable import ForkStore
import ForkStoreLocks
import ForkStoreTestSupport
import Foundation
import Testing

/// ``WorkInParts``: the caller takes every part's result in order, each part done once, by a
/// helper or by the caller; helpers stay within the window; with no helper free, the caller
/// does the work itself.
@Suite("Work in parts")
struct WorkInPartsTests {
    /// What the work saw: how often each part was done, and any part a thread started further
    /// past the caller than the window allows.
    final class Record: Sendable {
        let doneCount: Locked<[Int]>
        let tooFarAhead = Locked<[Int]>([])
        /// The part the caller is about to take (set before it asks).
        let wanted = Locked(0)

        init(parts: Int) { doneCount = Locked(Array(repeating: 0, count: parts)) }
    }

    @Test(arguments: [(0, nil), (1, 1), (2, 3), (2, nil), (8, 2)] as [(Int, Int?)])
    func everyPartIsDoneOnceAndTakenInOrder(helpers: Int, window: Int?) async throws {
        let parts = 200
        let record = Record(parts: parts)
        let taken = try await onOwnThread {
            let work = WorkInParts(parts: parts, helpers: helpers, window: window) { part in
                if let window, part >= record.wanted.withLock({ $0 }) + window { record.tooFarAhead.withLock { $0.append(part) } }
                record.doneCount.withLock { $0[part] += 1 }
                // Uneven parts, so helpers and the caller overtake one another.
                if part % 7 == 0 { Thread.sleep(forTimeInterval: 0.001) }
                return part * 3
            }
            return (0..<parts).map { part in
                record.wanted.withLock { $0 = part }
                return work.take(part)
            }
        }
        #expect(taken == (0..<parts).map { $0 * 3 })
        #expect(record.doneCount.withLock { $0 } == Array(repeating: 1, count: parts))
        #expect(record.tooFarAhead.withLock { $0 } == [])
    }

    @Test func resultsGivesEveryPartInOrder() async throws {
        let results = try await onOwnThread {
            WorkInParts(parts: 50, helpers: 2) { part in "part \(part)" }.results()
        }
        #expect(results == (0..<50).map { "part \($0)" })
    }

    /// Once the caller abandons the work, threads start no more parts (the one running
    /// finishes); a part the caller still takes, it does itself.
    @Test func abandonedPartsAreNotStarted() async throws {
        let record = Record(parts: 100)
        // Parts from 1 that the helper does wait for the gate: it is held in the part it
        // started. Parts the caller does never wait: it opens the gate itself, and when the
        // helper is in part 0 as the caller takes it, the caller does part 1 meanwhile.
        let gate = DispatchSemaphore(value: 0)
        let taken = try await onOwnThread {
            let caller = pthread_self()
            let work = WorkInParts(parts: 100, helpers: 1) { part in
                if part > 0, pthread_equal(pthread_self(), caller) == 0 { gate.wait() }
                record.doneCount.withLock { $0[part] += 1 }
                return part
            }
            let first = work.take(0)
            work.abandon()
            for _ in 0..<100 { gate.signal() }
            return [first, work.take(1), work.take(2), work.take(3)]
        }
        #expect(taken == [0, 1, 2, 3])
        // Wait for a helper still in a part when the work was abandoned.
        try await Task.sleep(for: .milliseconds(100))
        let done = record.doneCount.withLock { $0 }
        #expect(done[..<4].allSatisfy { $0 == 1 })
        // When the work was abandoned the helper was at most in part 2, held by the gate.
        #expect(done[4...].allSatisfy { $0 == 0 })
    }
}
