import ForkStoreMerge
import Foundation

/// Merges a "last changed" time: concurrent changes keep the later one, so a note edited on two
/// devices says when it was last changed anywhere. Never a conflict: there is nothing to choose.
struct LatestChange: MergeStrategy {
    var name: String { "latest-change" }
    var laws: MergeLawFamily { .set }  // idempotent and commutative

    func merge(ancestor: Date?, dominant: Date?, subordinate: Date?) throws -> Date? {
        if dominant == ancestor { return subordinate }
        if subordinate == ancestor { return dominant }
        return salvage(dominant: dominant, subordinate: subordinate)
    }

    func salvage(dominant: Date?, subordinate: Date?) -> Date? {
        guard let dominant, let subordinate else { return dominant ?? subordinate }
        return max(dominant, subordinate)
    }
}
