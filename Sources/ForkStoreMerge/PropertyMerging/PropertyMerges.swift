import ForkStore
import Foundation

/// A description of how a type merges, property by property: a strategy for each named
/// property, and last-writer-wins for each property it does not name.
///
/// Properties are named by key path. The stored (JSON) name is taken from the key path;
/// pass `key:` when your `CodingKeys` rename the property. Name top-level properties only;
/// to merge inside a nested value, make its type ``PropertyMergeable`` and use
/// ``mergeable(_:key:)``.
public struct PropertyMerges<Root: Codable & Sendable>: MergeStrategy {
    private struct Entry: Sendable {
        let key: String
        let merge: @Sendable (_ ancestor: Root, _ dominant: Root, _ subordinate: Root, _ result: inout Root) throws -> Void
        let salvage: @Sendable (_ dominant: Root, _ subordinate: Root, _ result: inout Root) throws -> Void
    }

    private var entries: [Entry] = []

    /// A description that names no property: every property merges by last-writer-wins.
    public init() {}

    public var name: String { "properties" }

    /// Merges a property with any strategy.
    public func property<Value>(
        _ keyPath: WritableKeyPath<Root, Value> & Sendable, key: String? = nil, using strategy: some MergeStrategy<Value>
    ) -> Self {
        var copy = self
        copy.entries.append(Entry(
            key: key ?? Self.name(of: keyPath),
            merge: { ancestor, dominant, subordinate, result in
                result[keyPath: keyPath] = try strategy.merge(
                    ancestor: ancestor[keyPath: keyPath], dominant: dominant[keyPath: keyPath],
                    subordinate: subordinate[keyPath: keyPath])
            },
            salvage: { dominant, subordinate, result in
                result[keyPath: keyPath] = try strategy.salvage(
                    dominant: dominant[keyPath: keyPath], subordinate: subordinate[keyPath: keyPath])
            }))
        return copy
    }

    /// Merges a string with ``TextMerge``.
    public func text(_ keyPath: WritableKeyPath<Root, String> & Sendable, key: String? = nil) -> Self {
        property(keyPath, key: key, using: TextMerge())
    }

    /// Merges an optional string with ``TextMerge`` inside ``OptionalMerge``.
    public func text(_ keyPath: WritableKeyPath<Root, String?> & Sendable, key: String? = nil) -> Self {
        property(keyPath, key: key, using: OptionalMerge(TextMerge()))
    }

    /// Merges an integer with ``Counter``.
    public func counter<Value: FixedWidthInteger & Codable & Sendable>(
        _ keyPath: WritableKeyPath<Root, Value> & Sendable, key: String? = nil
    ) -> Self {
        property(keyPath, key: key, using: Counter<Value>())
    }

    /// Merges a set with ``AddWinsSet``.
    public func addWinsSet<Element: Hashable & Codable & Sendable>(
        _ keyPath: WritableKeyPath<Root, Set<Element>> & Sendable, key: String? = nil
    ) -> Self {
        property(keyPath, key: key, using: AddWinsSet<Element>())
    }

    /// Merges an array with ``OrderedArrayMerge``.
    public func orderedArray<Element: Equatable & Codable & Sendable>(
        _ keyPath: WritableKeyPath<Root, [Element]> & Sendable, key: String? = nil
    ) -> Self {
        property(keyPath, key: key, using: OrderedArrayMerge<Element>())
    }

    /// Merges an array of identifiable elements with ``IdentifiableArrayMerge``, each element
    /// with its own `Mergeable` conformance.
    public func identifiableArray<Element: Identifiable & Mergeable & Equatable & Codable & Sendable>(
        _ keyPath: WritableKeyPath<Root, [Element]> & Sendable, key: String? = nil
    ) -> Self where Element.ID: Codable & Sendable {
        property(keyPath, key: key, using: IdentifiableArrayMerge(elements: MergeableStrategy<Element>()))
    }

    /// Merges a dictionary with ``DictionaryMerge``, each value with its own `Mergeable`
    /// conformance.
    public func dictionary<Key: Hashable & Codable & Sendable, Value: Mergeable & Equatable & Codable & Sendable>(
        _ keyPath: WritableKeyPath<Root, [Key: Value]> & Sendable, key: String? = nil
    ) -> Self {
        property(keyPath, key: key, using: DictionaryMerge<Key, MergeableStrategy<Value>>(values: MergeableStrategy()))
    }

    /// Merges a nested value with its own `Mergeable` conformance.
    public func mergeable<Value: Mergeable & Sendable>(
        _ keyPath: WritableKeyPath<Root, Value> & Sendable, key: String? = nil
    ) -> Self {
        property(keyPath, key: key, using: MergeableStrategy<Value>())
    }

    // MARK: Merging

    public func merge(ancestor: Root, dominant: Root, subordinate: Root) throws -> Root {
        MergeContext.strategyRan(name)
        let named = Set(entries.map(\.key))
        var result = try mergeUnnamed(ancestor: ancestor, dominant: dominant, subordinate: subordinate, except: named)
        for entry in entries {
            try MergeContext.inside(entry.key) {
                try entry.merge(ancestor, dominant, subordinate, &result)
            }
        }
        return result
    }

    public func salvage(dominant: Root, subordinate: Root) throws -> Root {
        var result = dominant
        for entry in entries {
            try MergeContext.inside(entry.key) {
                try entry.salvage(dominant, subordinate, &result)
            }
        }
        return result
    }

    /// Last-writer-wins for each stored property the description does not name, done on the
    /// encoded JSON so it needs no code per property.
    private func mergeUnnamed(ancestor: Root, dominant: Root, subordinate: Root, except named: Set<String>) throws -> Root {
        guard case .object(let base)? = try? Self.json(ancestor),
            case .object(let mine)? = try? Self.json(dominant),
            case .object(let theirs)? = try? Self.json(subordinate)
        else { return dominant }
        var merged: [JSONValue.Member] = []
        var changed = false
        for member in JSONValue.alignedMembers(base, mine, theirs) {
            let key = member.key, a = member.values[0], d = member.values[1], s = member.values[2]
            var value = d
            if !named.contains(key), d != s, s != a {
                if d == a {
                    value = s
                } else {
                    value = MergeContext.inside(key) {
                        MergeContext.conflict(
                            strategy: "last-writer-wins", ancestor: a, dominant: d, subordinate: s, chosen: d)
                    }
                }
                changed = changed || value != d
            }
            if let value { merged.append(JSONValue.Member(key: key, value: value)) }
        }
        guard changed else { return dominant }
        let object = JSONValue.object(merged)  // already in canonical order
        return try JSONDecoder().decode(Root.self, from: Data(CanonicalJSON.serialize(object)))
    }

    private static func json(_ value: Root) throws -> JSONValue {
        try CanonicalJSON.parse(Array(JSONEncoder().encode(value)))
    }

    /// The stored name of a key path's first property: `\Note.body` → `body`.
    private static func name(of keyPath: AnyKeyPath) -> String {
        let text = String(describing: keyPath)
        let path = text.drop { $0 != "." }.dropFirst()
        return String(path.prefix { $0 != "." })
    }
}
