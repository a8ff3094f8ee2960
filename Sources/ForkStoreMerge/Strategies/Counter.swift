import ForkStore

/// A counter: the result adds up what each side added since the ancestor.
///
/// ```
/// ancestor 10, dominant 13 (+3), subordinate 15 (+5)  → 18
/// ancestor 10, dominant 7 (−3), subordinate 12 (+2)   → 9
/// ancestor 4,  dominant 10 (+6), subordinate 10 (+6)  → 16
/// ```
///
/// Every increment counts, even when both sides end at the same number: each side's delta is
/// an event of its own. With no common ancestor (two counters started offline) the salvage
/// adds both, unless they are equal. Results saturate at the integer type's bounds instead of
/// overflowing.
///
/// Family: ``MergeLawFamily/counter``.
public struct Counter<Value: FixedWidthInteger & Codable & Sendable>: MergeStrategy {
    /// Makes a counter merge; it has no settings.
    public init() {}

    public var name: String { "counter" }

    public var laws: MergeLawFamily { .counter }

    public func merge(ancestor: Value, dominant: Value, subordinate: Value) throws -> Value {
        if subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        // dominant + (subordinate − ancestor), computed without overflow.
        let wide = Int128(dominant) + Int128(subordinate) - Int128(ancestor)
        return Value(clamping: wide)
    }

    public func salvage(dominant: Value, subordinate: Value) throws -> Value {
        guard dominant != subordinate else { return dominant }
        return dominant.addingReportingOverflow(subordinate).overflow
            ? (subordinate > 0 ? .max : .min) : dominant + subordinate
    }
}
