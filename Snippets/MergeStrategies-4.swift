import ForkStore
import ForkStoreMerge
import ForkStoreMergeTesting
import PropertyBased
import Testing

/// A priority: concurrent changes keep the higher one.
struct MaxWins: MergeStrategy {
    var name: String { "max-wins" }
    var laws: MergeLawFamily { .set }   // idempotent and commutative

    func merge(ancestor: Int, dominant: Int, subordinate: Int) throws -> Int {
        if dominant == ancestor { return subordinate }
        if subordinate == ancestor { return dominant }
        return max(dominant, subordinate)
    }
}

@Test func priorityMergesLawfully() async {
    await MergeLaws.check(MaxWins(), values: Gen.int(in: 0...5))
}
