/// The rules that merge a single-value store's value: pure Swift on decoded values, no git.
///
/// Values compare by their canonical JSON. Where both sides changed, the value's own
/// ``Mergeable`` merge runs on the dominant (later) side; values that are not `Mergeable` keep
/// the dominant side whole (last-writer-wins). A removal against an edit follows the store's
/// ``RemovalPolicy``.
enum ValueMerge<Value: Resource> {
    /// A value together with its canonical JSON, which decides equality.
    struct Version {
        let value: Value?
        let json: [UInt8]?

        init(_ value: Value?) throws(StoreError) {
            self.value = value
            self.json = try value.map { (value) throws(StoreError) in try ValueCodec.encode(value) }
        }
    }

    /// Merges two versions against their common ancestor; with no ancestor (unrelated
    /// histories) the two-way salvage runs.
    ///
    /// A `Mergeable` value that both sides changed is merged even when both ended equal: two
    /// counters that each went from 4 to 10 counted 12 events, not 6.
    static func merge(
        ancestor: Version?, dominant: Version, subordinate: Version
    ) throws -> (version: Version, decision: MergeDecision) {
        guard let ancestor else { return try salvage(dominant, subordinate) }
        if subordinate.json == ancestor.json { return (dominant, dominant.json == ancestor.json ? .identical : .oneSided) }
        if dominant.json == ancestor.json { return (subordinate, .oneSided) }
        switch (ancestor.value, dominant.value, subordinate.value) {
        case (_, nil, .some), (_, .some, nil):
            let kept = try MergeContext.removalConflict(
                ancestor: ancestor.value, dominant: dominant.value, subordinate: subordinate.value)
            return (try Version(kept), kept == nil ? .removalWins : .editWinsOverRemoval)
        case (.some(let base), .some(let mine), .some(let theirs)):
            if let merged = try MergeableDispatch.merged(mine, theirs, ancestor: base) {
                return (try Version(merged), .mergeable)
            }
            if dominant.json == subordinate.json { return (dominant, .identical) }
            return (try reported(.lastWriterWins, ancestor, dominant, subordinate, chosen: dominant), .lastWriterWins)
        case (nil, .some, .some):
            return try salvage(dominant, subordinate)
        case (_, nil, nil):
            return (dominant, .identical)
        }
    }

    /// Reports a whole-value conflict and applies the app's override, if any.
    private static func reported(
        _ decision: MergeDecision, _ ancestor: Version, _ dominant: Version, _ subordinate: Version, chosen: Version
    ) throws -> Version {
        let result = try MergeContext.conflict(
            strategy: decision.rawValue, ancestor: ancestor.value, dominant: dominant.value,
            subordinate: subordinate.value, chosen: chosen.value)
        return try Version(result)
    }

    private static func salvage(_ dominant: Version, _ subordinate: Version) throws -> (version: Version, decision: MergeDecision) {
        if dominant.json == subordinate.json { return (dominant, .identical) }
        guard let mine = dominant.value else { return (subordinate, .salvage) }
        guard let theirs = subordinate.value else { return (dominant, .salvage) }
        guard let salvaged = try MergeableDispatch.salvaged(mine, theirs) else { return (dominant, .lastWriterWins) }
        return (try Version(salvaged), .salvage)
    }
}
