import Dispatch
import Foundation
import ForkStoreLocks
import Synchronization

/// Work cut into parts that any thread may take: pool threads start on it at once, and the
/// caller takes up what is left when it is free, then waits only for parts already running.
/// A caller never waits for a pool thread that other work may hold: a part no pool thread has
/// started, it does itself.
///
/// A listing decodes its next batch this way while its caller hands the current one out.
final class WorkInParts<Part: Sendable>: Sendable {
    private let count: Int
    private let work: @Sendable (Int) -> Part
    private let next = Atomic<Int>(0)
    private let done: Locked<[Part?]>
    /// Signalled once per part done.
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `parts` parts of `work` on up to `helpers` pool threads, or threads of their
    /// own for work that waits on something else (a fetch) rather than holding a pool thread.
    init(parts: Int, helpers: Int, onOwnThreads: Bool = false, _ work: @escaping @Sendable (Int) -> Part) {
        (count, self.work) = (parts, work)
        done = Locked(Array(repeating: nil, count: parts))
        for _ in 0..<min(helpers, parts) {
            if onOwnThreads {
                Thread.detachNewThread { self.takeParts() }
            } else {
                DispatchQueue.global().async { self.takeParts() }
            }
        }
    }

    private func takeParts() {
        while true {
            let part = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard part < count else { return }
            let result = work(part)
            done.withLock { $0[part] = result }
            finished.signal()
        }
    }

    /// Whether every part is done: ``results()`` then waits for nothing.
    var isDone: Bool { done.withLock { $0.allSatisfy { $0 != nil } } }

    /// Every part's result, in order: the parts no thread has started are done on this one.
    func results() -> [Part] {
        takeParts()
        for _ in 0..<count { finished.wait() }
        return done.withLock { $0.compactMap { $0 } }
    }

    /// Leaves the parts no thread has started undone (the caller stopped wanting them).
    func abandon() {
        next.store(count, ordering: .relaxed)
    }
}
