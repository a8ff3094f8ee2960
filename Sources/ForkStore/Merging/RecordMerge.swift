/// The rules that merge one record changed on both sides: pure Swift on decoded records.
///
/// - edited on one side, deleted on the other → the store's ``RemovalPolicy`` decides (by
///   default the later of the two), reported as a conflict;
/// - edited on both → the record's own ``Mergeable`` merge (per property with
///   `PropertyMergeable`), even when both ended equal, or the dominant side's record,
///   reported as a conflict;
/// - added on both with different contents → ``Mergeable/salvaged(with:)``, or the dominant
///   side's record, reported as a conflict.
enum RecordMerge<Record: Resource> {
    /// Whether records of this type merge themselves, so that both sides changing a record the
    /// same way still runs the merge.
    static var mergesItself: Bool { Record.self is any Mergeable.Type }

    /// The merged record (nil: deleted) of a record that both sides changed.
    static func merge(ancestor: Record?, dominant: Record?, subordinate: Record?) throws -> Record? {
        switch (ancestor, dominant, subordinate) {
        case (_, nil, .some), (_, .some, nil):
            return try MergeContext.removalConflict(ancestor: ancestor, dominant: dominant, subordinate: subordinate)
        case (let base?, let dominant?, let subordinate?):
            if let merged = try MergeableDispatch.merged(dominant, subordinate, ancestor: base) {
                MergeContext.strategyRan("mergeable")
                return merged
            }
            return try MergeContext.conflict(
                strategy: MergeDecision.lastWriterWins.rawValue, ancestor: base, dominant: dominant,
                subordinate: subordinate, chosen: dominant)
        case (nil, let dominant?, let subordinate?):
            if let salvaged = try MergeableDispatch.salvaged(dominant, subordinate) { return salvaged }
            return try MergeContext.conflict(
                strategy: MergeDecision.salvage.rawValue, ancestor: nil as Record?, dominant: dominant,
                subordinate: subordinate, chosen: dominant)
        case (_, nil, nil):
            return nil
        }
    }
}
