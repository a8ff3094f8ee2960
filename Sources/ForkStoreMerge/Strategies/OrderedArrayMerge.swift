import ForkStore

/// A three-way list merge.
///
/// Elements neither side touched stay, once, in their place. Where only one side changed a
/// region, that side's version is taken. Where both changed the same region, deletions from
/// both sides apply and the insertions of both are kept: the dominant side's first, then the
/// subordinate's (minus any it shares with the dominant side's), and the conflict is reported.
///
/// ```
/// ancestor [a, b, c], dominant [a, x, b, c], subordinate [a, b, y]  → [a, x, b, y]
/// ancestor [a, b, c], dominant [a, x, c],    subordinate [a, y, c]  → [a, x, y] (conflict)
/// ```
public struct OrderedArrayMerge<Element: Equatable & Codable & Sendable>: MergeStrategy {
    public init() {}

    public var name: String { "ordered-array" }

    public func merge(ancestor: [Element], dominant: [Element], subordinate: [Element]) throws -> [Element] {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        return try ThreeWayDiff.merge(ancestor: ancestor, dominant: dominant, subordinate: subordinate) {
            base, mine, theirs, mineKept, theirsKept in
            let chosen = Self.keepBothInsertions(mine, theirs, mineKept, theirsKept)
            return try MergeContext.conflict(
                strategy: name, ancestor: base, dominant: mine, subordinate: theirs, chosen: chosen) ?? chosen
        }
    }

    /// The insertions of both sides, dominant first, without repeating one the dominant side
    /// already made. Ancestor elements in a conflicting region were removed by one side, so
    /// they go.
    static func keepBothInsertions(_ mine: [Element], _ theirs: [Element], _ mineKept: [Bool], _ theirsKept: [Bool]) -> [Element] {
        var result = zip(mine, mineKept).filter { !$0.1 }.map(\.0)
        var unmatched = result
        for (element, kept) in zip(theirs, theirsKept) where !kept {
            if let index = unmatched.firstIndex(of: element) {
                unmatched.remove(at: index)
            } else {
                result.append(element)
            }
        }
        return result
    }
}
