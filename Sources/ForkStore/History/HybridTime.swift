import Foundation

/// A reading of a hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014):
/// physical time in milliseconds and a logical counter that orders events within one
/// millisecond, or while the wall clock stands still or steps back.
///
/// Every commit carries one in its `Clock` trailer (`1763900000123-2`). A store issues them in
/// increasing order, each past the clocks of the commits it builds on (up to the maximum
/// skew, ``StoreOptions/maximumClockSkew``), so "later" means later even across replicas whose
/// wall clocks disagree a little: a replica that has seen another's commit writes after it.
/// ForkStore uses it to decide which side of a merge is the later write.
public struct HybridTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The physical part: milliseconds since 1970.
    public let milliseconds: Int64
    /// The logical part: how many events this clock issued within the same millisecond.
    public let counter: Int

    /// A clock reading.
    public init(milliseconds: Int64, counter: Int = 0) {
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// Reads a `Clock` trailer value: `<milliseconds>-<counter>`, both decimal digits only.
    /// Nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let milliseconds = Int64(parts[0]), let counter = Int(parts[1])
        else { return nil }
        self.init(milliseconds: milliseconds, counter: counter)
    }

    /// The physical part as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// `<milliseconds>-<counter>`, as written in the `Clock` trailer.
    public var description: String { "\(milliseconds)-\(counter)" }

    public static func < (lhs: HybridTime, rhs: HybridTime) -> Bool {
        (lhs.milliseconds, lhs.counter) < (rhs.milliseconds, rhs.counter)
    }

    /// The next reading after `self` at physical time `now` (a local event, or a receipt once
    /// `self` holds the maximum of every clock seen).
    /// The counter stays below `counterLimit`, the `Clock` trailer's range, whatever reading a
    /// peer's commit carried: past it, the next millisecond begins.
    func tick(now: Int64) -> HybridTime {
        if now > milliseconds { return HybridTime(milliseconds: now) }
        if counter < Self.counterLimit - 1 { return HybridTime(milliseconds: milliseconds, counter: counter + 1) }
        return HybridTime(milliseconds: milliseconds < Int64.max ? milliseconds + 1 : milliseconds)
    }

    /// 10^9: the counter's bound in a `Clock` trailer.
    static let counterLimit = 1_000_000_000
}
