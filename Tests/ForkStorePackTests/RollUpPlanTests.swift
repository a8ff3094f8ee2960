import ForkStorePack
import Testing

/// Which packs a roll-up takes: geometric, and bounded in objects so that its memory is.
struct RollUpPlanTests {
    private func packs(_ counts: [Int], kept: Set<Int> = []) -> [PackFile] {
        counts.enumerated().map { PackFile(base: "pack-\($0.offset)", objectCount: $0.element, isKept: kept.contains($0.offset)) }
    }

    @Test func smallPacksRollUpGeometrically() {
        // 10 + 10 ≥ half of 30, so all three go; 1,000 is more than twice the rest.
        let chosen = RollUp.packsToRollUp(packs([10, 10, 30, 1_000]), limit: 10_000)
        #expect(chosen.map(\.objectCount) == [10, 10, 30])
    }

    @Test func aRollUpNeverWritesMoreThanItsLimit() {
        // Geometrically all four would go (600 objects), but the limit is 100.
        let chosen = RollUp.packsToRollUp(packs([20, 30, 40, 510]), limit: 100)
        #expect(chosen.map(\.objectCount) == [20, 30, 40])
        #expect(chosen.reduce(0) { $0 + $1.objectCount } <= 100)
        // A pack at the limit is full: it never rolls up again, kept or not.
        #expect(RollUp.packsToRollUp(packs([100, 100, 100]), limit: 100).isEmpty)
        #expect(!RollUp.rollsUp(PackFile(base: "full", objectCount: 100, isKept: false), limit: 100))
    }

    @Test func keptPacksAreLeftAlone() {
        let chosen = RollUp.packsToRollUp(packs([5, 5, 5], kept: [1]), limit: 100)
        #expect(chosen.map(\.base) == ["pack-0", "pack-2"])
    }

    @Test func packingGroupsEveryPackThatRollsUpWithinTheLimit() {
        let groups = RollUp.groupsToRollUp(packs([10, 20, 30, 40, 45, 50, 100]), limit: 100)
        // The full pack of 100 stays as it is; the rest fill groups of at most 100.
        #expect(groups.map { $0.map(\.objectCount) } == [[10, 20, 30, 40], [45, 50]])
        // A lone pack is no group: there is nothing to roll it into.
        #expect(RollUp.groupsToRollUp(packs([60, 70]), limit: 100).isEmpty)
    }
}
