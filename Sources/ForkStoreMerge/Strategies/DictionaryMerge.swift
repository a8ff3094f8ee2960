import ForkStore

/// Merges dictionaries key by key, with a strategy for the values.
///
/// Per key:
/// - added on one side → added; added on both → the value strategy's salvage;
/// - removed on one side, unchanged on the other → removed; removed on both → removed;
/// - removed on one side, edited on the other → the `RemovalPolicy` decides (by default the
///   later of the two), and the conflict is reported;
/// - present everywhere, changed on both sides → the value strategy merges the three values
///   (even when both ended equal: a counter counts both).
///
/// Conflicts inside a value carry the key in their path (`/notes/<key>/title`).
public struct DictionaryMerge<Key: Hashable & Codable & Sendable, Values: MergeStrategy>: MergeStrategy
where Values.Value: Equatable & Codable & Sendable {
    /// The strategy that merges a key's three values when both sides changed it.
    public let values: Values
    /// What a removed key against an edited one does; nil follows the store's
    /// `StoreOptions.removalPolicy`.
    public let removal: RemovalPolicy?

    /// Makes a dictionary merge that merges changed values with `values`, and decides a
    /// removed key against an edited one by `removal` (the store's policy when nil).
    public init(values: Values, removal: RemovalPolicy? = nil) {
        self.values = values
        self.removal = removal
    }

    public var name: String { "dictionary" }

    public var laws: MergeLawFamily { MergeLawFamily(idempotent: values.laws.idempotent) }

    public func merge(
        ancestor: [Key: Values.Value], dominant: [Key: Values.Value], subordinate: [Key: Values.Value]
    ) throws -> [Key: Values.Value] {
        if subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        let optional = OptionalMerge(values, removal: removal)
        var result = dominant
        // Only keys that a side changed need a decision; the rest already hold.
        var keys = Set<Key>()
        for (key, value) in dominant where ancestor[key] != value { keys.insert(key) }
        for (key, value) in subordinate where ancestor[key] != value { keys.insert(key) }
        for key in ancestor.keys where dominant[key] == nil || subordinate[key] == nil { keys.insert(key) }
        for key in keys {
            let merged = try MergeContext.inside(String(describing: key)) {
                try optional.merge(ancestor: ancestor[key], dominant: dominant[key], subordinate: subordinate[key])
            }
            result[key] = merged
        }
        return result
    }

    public func salvage(dominant: [Key: Values.Value], subordinate: [Key: Values.Value]) throws -> [Key: Values.Value] {
        var result = dominant
        for (key, theirs) in subordinate {
            if let mine = dominant[key] {
                result[key] = try MergeContext.inside(String(describing: key)) {
                    try values.salvage(dominant: mine, subordinate: theirs)
                }
            } else {
                result[key] = theirs
            }
        }
        return result
    }
}
