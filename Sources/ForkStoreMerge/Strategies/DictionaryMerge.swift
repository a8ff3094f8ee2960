import ForkStore

/// Merges dictionaries key by key, with a strategy for the values.
///
/// Per key:
/// - added on one side → added; added on both → the value strategy's salvage;
/// - removed on one side, unchanged on the other → removed; removed on both → removed;
/// - removed on one side, edited on the other → the edit is kept and the conflict reported;
/// - present everywhere → the value strategy merges the three values.
///
/// Conflicts inside a value carry the key in their path (`/notes/<key>/title`).
public struct DictionaryMerge<Key: Hashable & Codable & Sendable, Values: MergeStrategy>: MergeStrategy
where Values.Value: Equatable & Codable & Sendable {
    public let values: Values

    public init(values: Values) {
        self.values = values
    }

    public var name: String { "dictionary" }

    public func merge(
        ancestor: [Key: Values.Value], dominant: [Key: Values.Value], subordinate: [Key: Values.Value]
    ) throws -> [Key: Values.Value] {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        let optional = OptionalMerge(values)
        var result = dominant
        // Only keys that differ somewhere need a decision; the rest already hold.
        var keys = Set<Key>()
        for (key, value) in subordinate where dominant[key] != value { keys.insert(key) }
        for (key, value) in ancestor where dominant[key] != value || subordinate[key] != value { keys.insert(key) }
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
