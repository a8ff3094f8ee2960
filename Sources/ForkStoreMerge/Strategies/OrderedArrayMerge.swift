import ForkStore

/// A three-way list merge.
///
/// Elements neither side touched stay, once, in their place. Deletions from either side
/// apply. Insertions from both sides are kept in their places; where both sides inserted
/// different elements at the same place, the dominant side's come first, then the
/// subordinate's (minus any the dominant side also inserted), and the conflict is reported.
///
/// ```
/// ancestor [a, b, c], dominant [a, x, b, c], subordinate [a, b, y]  → [a, x, b, y]
/// ancestor [a, b, c], dominant [a, x, c],    subordinate [a, y, c]  → [a, x, y, c] (conflict)
/// ```
public struct OrderedArrayMerge<Element: Equatable & Codable & Sendable>: MergeStrategy {
    /// Makes a three-way list merge; it has no settings.
    public init() {}

    public var name: String { "ordered-array" }

    public var laws: MergeLawFamily { .sequence }

    public func merge(ancestor: [Element], dominant: [Element], subordinate: [Element]) throws -> [Element] {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        return try ThreeWayDiff.merge(ancestor: ancestor, dominant: dominant, subordinate: subordinate) {
            region in
            let chosen = Self.keepBothInsertions(region)
            return try MergeContext.conflict(
                strategy: name, ancestor: region.ancestor, dominant: region.dominant,
                subordinate: region.subordinate, chosen: chosen) ?? chosen
        }
    }

    /// The insertions of both sides, dominant first, without repeating one the dominant side
    /// already made. Ancestor elements in a conflicting region were removed by one side, so
    /// they go.
    static func keepBothInsertions(_ region: ThreeWayDiff.ChangedRegion<Element>) -> [Element] {
        var result = zip(region.dominant, region.dominantKept).filter { !$0.1 }.map(\.0)
        var unmatched = result
        for (element, kept) in zip(region.subordinate, region.subordinateKept) where !kept {
            if let index = unmatched.firstIndex(of: element) {
                unmatched.remove(at: index)
            } else {
                result.append(element)
            }
        }
        return result
    }
}
