import ForkStore
import Foundation

/// A description of how a type merges, property by property: a strategy for each named
/// property, and last-writer-wins for each property it does not name.
///
/// Properties are named by key path. Their stored (JSON) keys are found from the type's own
/// encoding, so `CodingKeys` renames need nothing and builds without reflection metadata work
/// alike: during a merge, the property is copied from one side into the other and the keys
/// whose JSON changed are the property's. `key:` states the stored key outright; it is checked
/// against the encoding, and a key the property is not stored under fails the merge with
/// `StoreError.mergeFailed(reason:)`. Name top-level properties only; to merge inside a
/// nested value, make its type ``PropertyMergeable`` and use ``mergeable(_:key:)``.
public struct PropertyMerges<Root: Codable & Sendable>: MergeStrategy {
    private struct Entry: Sendable {
        /// The stored key the app named, if any.
        let key: String?
        let merge: @Sendable (_ ancestor: Root, _ dominant: Root, _ subordinate: Root, _ result: inout Root) throws -> Void
        let salvage: @Sendable (_ dominant: Root, _ subordinate: Root, _ result: inout Root) throws -> Void
        /// Copies the property's value from `source` into `target`, to find its stored keys.
        let transplant: @Sendable (_ source: Root, _ target: inout Root) -> Void
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
            key: key,
            merge: { ancestor, dominant, subordinate, result in
                result[keyPath: keyPath] = try strategy.merge(
                    ancestor: ancestor[keyPath: keyPath], dominant: dominant[keyPath: keyPath],
                    subordinate: subordinate[keyPath: keyPath])
            },
            salvage: { dominant, subordinate, result in
                result[keyPath: keyPath] = try strategy.salvage(
                    dominant: dominant[keyPath: keyPath], subordinate: subordinate[keyPath: keyPath])
            },
            transplant: { source, target in target[keyPath: keyPath] = source[keyPath: keyPath] }))
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
        // Encoded once: every named property is found against it, and the rest merged on it.
        let encoded = try? Self.json(dominant)
        let keys = try entries.map { try storedKeys(of: $0, in: dominant, encoded: encoded, comparedWith: [subordinate, ancestor]) }
        var result = try mergeUnnamed(
            ancestor: ancestor, dominant: dominant, encoded: encoded, subordinate: subordinate, except: Set(keys.joined()))
        for (entry, keys) in zip(entries, keys) {
            try MergeContext.inside(keys.first ?? entry.key ?? "") {
                try entry.merge(ancestor, dominant, subordinate, &result)
            }
        }
        return result
    }

    public func salvage(dominant: Root, subordinate: Root) throws -> Root {
        var result = dominant
        let encoded = try? Self.json(dominant)
        for entry in entries {
            let keys = try storedKeys(of: entry, in: dominant, encoded: encoded, comparedWith: [subordinate])
            try MergeContext.inside(keys.first ?? entry.key ?? "") {
                try entry.salvage(dominant, subordinate, &result)
            }
        }
        return result
    }

    /// The JSON keys a named property is stored under, found by copying its value from each of
    /// `others` into `value` (`encoded` is its JSON) in turn and seeing which top-level keys
    /// change. Empty when the property encodes the same on every side (then nothing about it
    /// can conflict).
    private func storedKeys(of entry: Entry, in value: Root, encoded: JSONValue?, comparedWith others: [Root]) throws -> [String] {
        guard case .object(let original)? = encoded else { return entry.key.map { [$0] } ?? [] }
        for other in others {
            var probe = value
            entry.transplant(other, &probe)
            guard case .object(let changed)? = try? Self.json(probe) else { continue }
            let keys = JSONValue.alignedMembers(original, changed).filter { $0.values[0] != $0.values[1] }.map(\.key)
            guard !keys.isEmpty else { continue }
            if let named = entry.key, !keys.contains(named) {
                throw StoreError.mergeFailed(reason: """
                    PropertyMerges<\(Root.self)> names the key '\(named)', but that property is stored as \
                    \(keys.map { "'\($0)'" }.joined(separator: ", ")); fix the key: argument or leave it out
                    """)
            }
            return entry.key.map { [$0] } ?? keys
        }
        return entry.key.map { [$0] } ?? []
    }

    /// Last-writer-wins for each stored property the description does not name, done on the
    /// encoded JSON so it needs no code per property.
    private func mergeUnnamed(
        ancestor: Root, dominant: Root, encoded: JSONValue?, subordinate: Root, except named: Set<String>
    ) throws -> Root {
        guard case .object(let base)? = try? Self.json(ancestor),
            case .object(let mine)? = encoded,
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
        return try JSONValueDecoder().decode(Root.self, from: object)
    }

    private static func json(_ value: Root) throws -> JSONValue {
        try JSONValueEncoder().encode(value)
    }
}
