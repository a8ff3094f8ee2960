import ForkStore

/// Merges arrays of `Identifiable` elements: elements by id with a strategy for elements,
/// and their order with a three-way list merge of the ids.
///
/// Per id:
/// - added on one side → added (at its place in that side's order);
/// - removed on one side, unchanged on the other → removed;
/// - removed on one side, edited on the other → the `RemovalPolicy` decides (by default the
///   later of the two), and the conflict is reported;
/// - present everywhere, changed on both sides → the element strategy merges the three
///   versions.
///
/// Ids are unique in the result: within each input, only the first element with an id counts.
public struct IdentifiableArrayMerge<Element: Identifiable & Equatable & Codable & Sendable, Elements: MergeStrategy>: MergeStrategy
where Elements.Value == Element, Element.ID: Codable & Sendable {
    /// The strategy that merges an element's three versions when both sides changed it.
    public let elements: Elements
    /// What a removed element against an edited one does; nil follows the store's
    /// `StoreOptions.removalPolicy`.
    public let removal: RemovalPolicy?

    /// Makes an array merge that merges changed elements with `elements`, and decides a
    /// removed element against an edited one by `removal` (the store's policy when nil).
    public init(elements: Elements, removal: RemovalPolicy? = nil) {
        self.elements = elements
        self.removal = removal
    }

    public var name: String { "identifiable-array" }

    public var laws: MergeLawFamily { MergeLawFamily(idempotent: elements.laws.idempotent) }

    public func merge(ancestor: [Element], dominant: [Element], subordinate: [Element]) throws -> [Element] {
        let ancestor = Self.unique(ancestor), dominant = Self.unique(dominant), subordinate = Self.unique(subordinate)
        if subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        let base = Self.byID(ancestor), mine = Self.byID(dominant), theirs = Self.byID(subordinate)

        // Decide each element.
        let optional = OptionalMerge(elements, removal: removal)
        var merged: [Element.ID: Element] = [:]
        for id in Set(base.keys).union(mine.keys).union(theirs.keys) {
            let value = try MergeContext.inside(String(describing: id)) {
                try optional.merge(ancestor: base[id], dominant: mine[id], subordinate: theirs[id])
            }
            merged[id] = value
        }

        // Merge the order of ids, then place elements that an edit kept alive after removal.
        let order = ThreeWayDiff.merge(
            ancestor: Self.ids(ancestor), dominant: Self.ids(dominant), subordinate: Self.ids(subordinate)
        ) { region in
            OrderedArrayMerge<Element.ID>.keepBothInsertions(region)
        }
        var result: [Element.ID] = []
        var placed = Set<Element.ID>()
        for id in order where merged[id] != nil && placed.insert(id).inserted {
            result.append(id)
        }
        for side in [Self.ids(dominant), Self.ids(subordinate)] {
            for (index, id) in side.enumerated() where merged[id] != nil && !placed.contains(id) {
                let predecessor = side[..<index].last { placed.contains($0) }
                let position = predecessor.flatMap { result.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
                result.insert(id, at: position)
                placed.insert(id)
            }
        }
        return result.compactMap { merged[$0] }
    }

    public func salvage(dominant: [Element], subordinate: [Element]) throws -> [Element] {
        let mine = Self.byID(dominant)
        var result = Self.unique(dominant)
        for element in Self.unique(subordinate) {
            if let index = result.firstIndex(where: { $0.id == element.id }), let own = mine[element.id] {
                result[index] = try MergeContext.inside(String(describing: element.id)) {
                    try elements.salvage(dominant: own, subordinate: element)
                }
            } else {
                result.append(element)
            }
        }
        return result
    }

    private static func unique(_ array: [Element]) -> [Element] {
        var seen = Set<Element.ID>()
        return array.filter { seen.insert($0.id).inserted }
    }

    private static func ids(_ array: [Element]) -> [Element.ID] {
        unique(array).map(\.id)
    }

    private static func byID(_ array: [Element]) -> [Element.ID: Element] {
        Dictionary(unique(array).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
