import ForkStore

/// A register: the side that changed wins; when both changed it differently, the dominant
/// side wins and the conflict is reported.
///
/// ```
/// ancestor "Draft", dominant "Final", subordinate "Draft"   → "Final"
/// ancestor "Draft", dominant "Draft", subordinate "Sent"    → "Sent"
/// ancestor "Draft", dominant "Final", subordinate "Sent"    → "Final" (conflict reported)
/// ```
///
/// The dominant side is the later write: the commit with the higher hybrid logical clock (then
/// the higher replica id, then commit id), so every replica picks the same side.
///
/// Family: ``MergeLawFamily/register``.
public struct LastWriterWins<Value: Equatable & Codable & Sendable>: MergeStrategy {
    /// Makes a last-writer-wins register; it has no settings.
    public init() {}

    public var name: String { "last-writer-wins" }

    public var laws: MergeLawFamily { .register }

    public func merge(ancestor: Value, dominant: Value, subordinate: Value) throws -> Value {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        return try MergeContext.conflict(
            strategy: name, ancestor: ancestor, dominant: dominant, subordinate: subordinate, chosen: dominant
        ) ?? dominant
    }
}
