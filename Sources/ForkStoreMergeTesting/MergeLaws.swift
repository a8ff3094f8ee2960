import ForkStore
import ForkStoreMerge
import PropertyBased
import Testing

/// Checks, with generated random values, the laws a merge strategy promises. Use it in your
/// own test suite for your strategies and `Mergeable` types:
///
/// ```swift
/// import ForkStoreMergeTesting
/// import PropertyBased
/// import Testing
///
/// @Test func tagsMergeLawfully() async {
///     await MergeLaws.check(AddWinsSet<String>(), values: Gen.letter.string(of: 1...3).set(ofAtMost: 6))
/// }
/// ```
///
/// The laws, for ancestor `a` and sides `x` (dominant) and `y` (subordinate). Every strategy:
/// 1. **One side unchanged**: `merge(a, a, y) == y` and `merge(a, x, a) == x`.
/// 2. **Convergence**: two replicas merging the same commits get the same result. ForkStore
///    hands both replicas the same dominant side, so the strategy must depend on nothing but
///    its inputs; the check runs each merge twice, on separate tasks, and compares.
///
/// Then the laws of the strategy's family (``MergeStrategy/laws``, see `MergeLawFamily`):
/// 3. **Idempotence** (registers, sets, sequences): `merge(a, x, x) == x`; merging an input
///    into the result `r` again changes nothing (`merge(x, r, x) == r`, `merge(y, y, r) == r`);
///    `salvage(x, x) == x`. Counters are not idempotent: both sides' increments count.
/// 4. **Commutativity** (sets, counters): `merge(a, x, y) == merge(a, y, x)`.
/// 5. **Dominance** (registers): where both sides changed, `merge(a, x, y) == x`.
/// 6. **Counting** (counters of integers): `merge(a, x, y) == x + y − a`, saturating.
///
/// A failure is recorded as a Swift Testing issue naming the law and the inputs; PropertyBased
/// prints the seed to reproduce it.
public enum MergeLaws {
    /// Checks a strategy's laws (those of `laws`, by default its own family) on `count`
    /// generated triples.
    public static func check<Strategy: MergeStrategy>(
        _ strategy: Strategy,
        values: Generator<Strategy.Value, some SendableSequenceType>,
        laws: MergeLawFamily? = nil,
        count: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async where Strategy.Value: Equatable & Sendable {
        let family = laws ?? strategy.laws
        await propertyCheck(count: count, input: values, values, values) { a, x, y in
            try await checkLaws(
                merge: { try strategy.merge(ancestor: $0, dominant: $1, subordinate: $2) },
                salvage: { try strategy.salvage(dominant: $0, subordinate: $1) },
                a, x, y, family: family, name: strategy.name, sourceLocation: sourceLocation)
        }
    }

    /// Checks the laws of a type's own ``Mergeable`` conformance: the universal ones, and those
    /// of `laws` when the type promises more.
    public static func check<Value: Mergeable & Equatable & Sendable>(
        _ type: Value.Type,
        values: Generator<Value, some SendableSequenceType>,
        laws: MergeLawFamily = .convergent,
        count: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await check(MergeableStrategy<Value>(), values: values, laws: laws, count: count, sourceLocation: sourceLocation)
    }

    /// The laws for one triple, recording an issue for each law broken.
    static func checkLaws<Value: Equatable & Sendable>(
        merge: @escaping @Sendable (Value, Value, Value) throws -> Value,
        salvage: @escaping @Sendable (Value, Value) throws -> Value,
        _ a: Value, _ x: Value, _ y: Value, family: MergeLawFamily, name: String, sourceLocation: SourceLocation
    ) async throws {
        let onlyTheirs = try merge(a, a, y)
        #expect(onlyTheirs == y, "\(name): merge(a, a, y) != y for a=\(a), y=\(y)", sourceLocation: sourceLocation)
        let onlyOurs = try merge(a, x, a)
        #expect(onlyOurs == x, "\(name): merge(a, x, a) != x for a=\(a), x=\(x)", sourceLocation: sourceLocation)

        async let first = Task.detached { try merge(a, x, y) }.value
        async let second = Task.detached { try merge(a, x, y) }.value
        let (r, again) = try await (first, second)
        #expect(r == again, "\(name): two replicas disagree for a=\(a), x=\(x), y=\(y)", sourceLocation: sourceLocation)

        if family.idempotent {
            let agreement = try merge(a, x, x)
            #expect(agreement == x, "\(name): merge(a, x, x) != x for a=\(a), x=\(x)", sourceLocation: sourceLocation)
            let remergeOurs = try merge(x, r, x)
            #expect(remergeOurs == r, "\(name): merging x into its merge result changed it; a=\(a), x=\(x), y=\(y), r=\(r)", sourceLocation: sourceLocation)
            let remergeTheirs = try merge(y, y, r)
            #expect(remergeTheirs == r, "\(name): merging y into its merge result changed it; a=\(a), x=\(x), y=\(y), r=\(r)", sourceLocation: sourceLocation)
            let salvaged = try salvage(x, x)
            #expect(salvaged == x, "\(name): salvage(x, x) != x for x=\(x)", sourceLocation: sourceLocation)
        }
        if family.commutative {
            let swapped = try merge(a, y, x)
            #expect(swapped == r, "\(name): merge(a, x, y) != merge(a, y, x) for a=\(a), x=\(x), y=\(y): \(r) vs \(swapped)", sourceLocation: sourceLocation)
        }
        if family.dominantWins, x != a, y != a {
            #expect(r == x, "\(name): both sides changed but the dominant side did not win; a=\(a), x=\(x), y=\(y), r=\(r)", sourceLocation: sourceLocation)
        }
        if family.counting, let expected = countedSum(a, x, y) {
            #expect(r == expected, "\(name): merge(a, x, y) != x + y − a for a=\(a), x=\(x), y=\(y): \(r)", sourceLocation: sourceLocation)
        }
    }

    /// `x + y − a`, clamped to the type's bounds, when the values are fixed-width integers.
    private static func countedSum<Value>(_ a: Value, _ x: Value, _ y: Value) -> Value? {
        func sum<Integer: FixedWidthInteger>(_ a: Integer) -> Value? {
            guard let x = x as? Integer, let y = y as? Integer else { return nil }
            return Integer(clamping: Int128(x) + Int128(y) - Int128(a)) as? Value
        }
        guard let integer = a as? any FixedWidthInteger else { return nil }
        return sum(integer)
    }
}
