import ForkStore

/// Merges optional values with a strategy for the wrapped values.
///
/// - both sides have a value: the wrapped strategy merges them (its salvage when the
///   ancestor had none);
/// - one side cleared the value and the other left it alone: cleared;
/// - one side cleared it and the other changed it: the change is kept (nothing is lost) and
///   the conflict is reported.
public struct OptionalMerge<Wrapped: MergeStrategy>: MergeStrategy
where Wrapped.Value: Equatable & Codable & Sendable {
    public let wrapped: Wrapped

    public init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    public var name: String { "optional(\(wrapped.name))" }

    public func merge(
        ancestor: Wrapped.Value?, dominant: Wrapped.Value?, subordinate: Wrapped.Value?
    ) throws -> Wrapped.Value? {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        switch (ancestor, dominant, subordinate) {
        case (.some(let base), .some(let mine), .some(let theirs)):
            return try wrapped.merge(ancestor: base, dominant: mine, subordinate: theirs)
        case (nil, .some(let mine), .some(let theirs)):
            return try wrapped.salvage(dominant: mine, subordinate: theirs)
        default:
            // One side cleared the value, the other changed it: keep the change.
            MergeContext.strategyRan(name)
            let kept = dominant ?? subordinate
            return try MergeContext.conflict(
                strategy: name, ancestor: ancestor, dominant: dominant, subordinate: subordinate, chosen: kept)
        }
    }

    public func salvage(dominant: Wrapped.Value?, subordinate: Wrapped.Value?) throws -> Wrapped.Value? {
        guard let mine = dominant else { return subordinate }
        guard let theirs = subordinate else { return mine }
        return try wrapped.salvage(dominant: mine, subordinate: theirs)
    }
}
