import Dispatch
import Foundation

/// Work cut into parts that any thread may take, whose results the caller takes in order: pool
/// threads start on it at once, and the caller, when the part it wants is not done, does a part
/// no thread has started rather than wait. It waits only when every part it could do is
/// running. A caller never waits for a pool thread that other work may hold: a part no pool
/// thread has started, it does itself.
///
/// A listing decodes its records this way while its caller hands out those decoded: with a
/// `window`, threads work at most that many parts ahead of the one the caller last took, so
/// memory stays bounded however many parts there are, and no thread waits at the end of a
/// batch for the others (as a listing's helpers did when it went batch by batch).
///
/// `@unchecked Sendable`: everything that changes is guarded by `condition`.
final class WorkInParts<Part: Sendable>: @unchecked Sendable {
    private let count: Int
    private let helpers: Int
    private let window: Int
    private let onOwnThreads: Bool
    private let work: @Sendable (Int) -> Part
    /// Guards everything below; the caller waits on it for a part a thread is doing.
    private let condition = NSCondition()
    /// The first part no thread has started.
    private var next = 0
    /// The part the caller takes or last took: threads start parts before `taking + window`.
    private var taking = 0
    /// Threads start no part from here on: `count`, or where the work was abandoned.
    private var end: Int
    /// Helpers at work.
    private var running = 0
    /// Parts done and not yet taken.
    private var done: [Int: Part] = [:]
    private var finished = 0

    /// Starts `parts` parts of `work` on up to `helpers` pool threads, or threads of their
    /// own for work that waits on something else (a fetch) rather than holding a pool thread;
    /// at most `window` parts ahead of the caller (all of them when nil).
    init(parts: Int, helpers: Int, window: Int? = nil, onOwnThreads: Bool = false, _ work: @escaping @Sendable (Int) -> Part) {
        (count, self.helpers, self.window, self.onOwnThreads, self.work) = (parts, helpers, max(1, window ?? parts), onOwnThreads, work)
        end = parts
        condition.withLock { startHelpers() }
    }

    /// The first part threads may not start yet: past the window, or the end. With
    /// `condition` held.
    private var startable: Int { min(end, taking + window) }

    /// Starts helpers while fewer than `helpers` are at work and parts within the window wait.
    /// With `condition` held.
    private func startHelpers() {
        while running < min(helpers, startable - next) {
            running += 1
            if onOwnThreads {
                Thread.detachNewThread { self.help() }
            } else {
                DispatchQueue.global().async { self.help() }
            }
        }
    }

    /// Does parts within the window until there are none.
    private func help() {
        condition.lock()
        defer { condition.unlock() }
        while next < startable {
            let part = next
            next += 1
            condition.unlock()
            let result = work(part)
            condition.lock()
            done[part] = result
            finished += 1
            condition.signal()
        }
        running -= 1
    }

    /// Whether every part is done: taking them then waits for nothing.
    var isDone: Bool { condition.withLock { finished == count } }

    /// The result of `part`: parts are taken in order, 0 first, each once. One no thread has
    /// started (also after ``abandon()``) is done here; while a thread is doing it, the caller
    /// does the next part no thread has started, or else waits.
    func take(_ part: Int) -> Part {
        condition.lock()
        defer { condition.unlock() }
        taking = part
        startHelpers()
        while true {
            if let result = done.removeValue(forKey: part) { return result }
            let mine: Int
            if next <= part {
                mine = part
            } else if next < startable {
                mine = next
            } else {
                condition.wait()
                continue
            }
            next = mine + 1
            condition.unlock()
            let result = work(mine)
            condition.lock()
            finished += 1
            if mine == part { return result }
            done[mine] = result
        }
    }

    /// Every part's result, in order (see ``take(_:)``).
    func results() -> [Part] {
        (0..<count).map { take($0) }
    }

    /// Threads start no more parts (the caller stopped wanting them); those running finish.
    func abandon() {
        condition.withLock { end = next }
    }
}
