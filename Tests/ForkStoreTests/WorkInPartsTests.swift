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

    /// Parts no thread has started when the caller abandons the work are never done.
    @Test func abandonedPartsAreNotStarted() async throws {
        let record = Record(parts: 100)
        try await onOwnThread {
            let work = WorkInParts(parts: 100, helpers: 1, window: 4) { part in
                record.doneCount.withLock { $0[part] += 1 }
                return part
            }
            _ = work.take(0)
            work.abandon()
        }
        // Wait for a helper still doing a part when the work was abandoned.
        try await Task.sleep(for: .milliseconds(100))
        let done = record.doneCount.withLock { $0 }
        #expect(done[0] == 1)
        // Within the window of part 0 at most, and never any part twice.
        #expect(done[5...].allSatisfy { $0 == 0 })
        #expect(done.allSatisfy { $0 <= 1 })
    }
}
