import ForkStore
import Foundation
import ForkStoreLocks

/// A wall clock a test moves by hand.
public final class TestClock: Sendable {
    private let now: Locked<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        now = Locked(start)
    }

    public func advance(_ seconds: TimeInterval) {
        now.withLock { $0 += seconds }
    }

    public func set(_ date: Date) {
        now.withLock { $0 = date }
    }

    public var date: Date { now.withLock { $0 } }

    public var options: StoreOptions {
        var options = StoreOptions()
        options.wallClock = { [self] in date }
        return options
    }
}
