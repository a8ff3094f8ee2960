import ForkStore

/// A set where additions win: an element is in the result if both sides have it, or if
/// either side added it since the ancestor.
///
/// Rules, per element:
/// - added on either side → kept;
/// - removed on one side, left alone on the other → removed;
/// - removed on both sides → removed;
/// - present in the ancestor and on both sides → kept.
///
/// ```
/// ancestor {red, blue}, dominant {blue} (red removed), subordinate {red, blue, green} → {blue, green}
/// ```
///
/// With no common ancestor, the salvage is the union.
///
/// Family: ``MergeLawFamily/set``.
public struct AddWinsSet<Element: Hashable & Codable & Sendable>: MergeStrategy {
    /// Makes an add-wins set merge; it has no settings.
    public init() {}

    public var name: String { "add-wins-set" }

    public var laws: MergeLawFamily { .set }

    public func merge(ancestor: Set<Element>, dominant: Set<Element>, subordinate: Set<Element>) throws -> Set<Element> {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        return dominant.intersection(subordinate)
            .union(dominant.subtracting(ancestor))
            .union(subordinate.subtracting(ancestor))
    }

    public func salvage(dominant: Set<Element>, subordinate: Set<Element>) throws -> Set<Element> {
        dominant.union(subordinate)
    }
}
