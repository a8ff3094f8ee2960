import ForkStore

/// Merges optional values with a strategy for the wrapped values.
///
/// - both sides have a value: the wrapped strategy merges them (its salvage when the
///   ancestor had none);
/// - one side cleared the value and the other left it alone: cleared;
/// - one side cleared it and the other changed it: the `RemovalPolicy` decides (by default
///   the later of the two wins), and the conflict is reported.
public struct OptionalMerge<Wrapped: MergeStrategy>: MergeStrategy
where Wrapped.Value: Equatable & Codable & Sendable {
    /// The strategy that merges the values when both sides have one.
    public let wrapped: Wrapped
    /// What a clear against a change does; nil follows the store's `StoreOptions.removalPolicy`.
    public let removal: RemovalPolicy?

    /// Makes an optional merge that merges present values with `wrapped`, and decides a clear
    /// against a change by `removal` (the store's policy when nil).
    public init(_ wrapped: Wrapped, removal: RemovalPolicy? = nil) {
        self.wrapped = wrapped
        self.removal = removal
    }

    public var name: String { "optional(\(wrapped.name))" }

    public var laws: MergeLawFamily { MergeLawFamily(idempotent: wrapped.laws.idempotent) }

    public func merge(
        ancestor: Wrapped.Value?, dominant: Wrapped.Value?, subordinate: Wrapped.Value?
    ) throws -> Wrapped.Value? {
        if subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        switch (ancestor, dominant, subordinate) {
        case (.some(let base), .some(let mine), .some(let theirs)):
            return try wrapped.merge(ancestor: base, dominant: mine, subordinate: theirs)
        case (nil, .some(let mine), .some(let theirs)):
            return try wrapped.salvage(dominant: mine, subordinate: theirs)
        case (_, nil, nil):
            return nil
        default:
            // One side cleared the value, the other changed it.
            MergeContext.strategyRan(name)
            return try MergeContext.removalConflict(
                ancestor: ancestor, dominant: dominant, subordinate: subordinate, policy: removal)
        }
    }

    public func salvage(dominant: Wrapped.Value?, subordinate: Wrapped.Value?) throws -> Wrapped.Value? {
        guard let mine = dominant else { return subordinate }
        guard let theirs = subordinate else { return mine }
        return try wrapped.salvage(dominant: mine, subordinate: theirs)
    }
}
