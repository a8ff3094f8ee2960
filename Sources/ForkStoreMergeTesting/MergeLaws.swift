import ForkStore
import ForkStoreMerge
import PropertyBased
import Testing

/// Checks, with generated random values, the laws every merge strategy must keep. Use it in
/// your own test suite for your strategies and `Mergeable` types:
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
/// The laws, for ancestor `a` and sides `x` (dominant) and `y` (subordinate):
/// 1. **Agreement**: `merge(a, x, x) == x`.
/// 2. **One side unchanged**: `merge(a, a, y) == y` and `merge(a, x, a) == x`.
/// 3. **Determinism**: two replicas merging the same commits get the same result. ForkStore
///    hands both replicas the same dominant side, so the strategy must depend on nothing but
///    its inputs; the check runs each merge twice, on separate tasks, and compares.
/// 4. **Stability**: with `r = merge(a, x, y)`, merging either input into `r` again, with
///    that input as the ancestor, changes nothing: `merge(x, r, x) == r`, `merge(y, y, r) == r`.
/// 5. **Salvage agreement**: `salvage(x, x) == x`.
///
/// A failure is recorded as a Swift Testing issue naming the law and the inputs; PropertyBased
/// prints the seed to reproduce it.
public enum MergeLaws {
    /// Checks a strategy's laws on `count` generated triples.
    public static func check<Strategy: MergeStrategy>(
        _ strategy: Strategy,
        values: Generator<Strategy.Value, some SendableSequenceType>,
        count: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async where Strategy.Value: Equatable & Sendable {
        await propertyCheck(count: count, input: values, values, values) { a, x, y in
            try await checkLaws(
                merge: { try strategy.merge(ancestor: $0, dominant: $1, subordinate: $2) },
                salvage: { try strategy.salvage(dominant: $0, subordinate: $1) },
                a, x, y, name: strategy.name, sourceLocation: sourceLocation)
        }
    }

    /// Checks the laws of a type's own ``Mergeable`` conformance.
    public static func check<Value: Mergeable & Equatable & Sendable>(
        _ type: Value.Type,
        values: Generator<Value, some SendableSequenceType>,
        count: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await check(MergeableStrategy<Value>(), values: values, count: count, sourceLocation: sourceLocation)
    }

    /// The laws for one triple, recording an issue for each law broken.
    static func checkLaws<Value: Equatable & Sendable>(
        merge: @escaping @Sendable (Value, Value, Value) throws -> Value,
        salvage: @escaping @Sendable (Value, Value) throws -> Value,
        _ a: Value, _ x: Value, _ y: Value, name: String, sourceLocation: SourceLocation
    ) async throws {
        let agreement = try merge(a, x, x)
        #expect(agreement == x, "\(name): merge(a, x, x) != x for a=\(a), x=\(x)", sourceLocation: sourceLocation)
        let onlyTheirs = try merge(a, a, y)
        #expect(onlyTheirs == y, "\(name): merge(a, a, y) != y for a=\(a), y=\(y)", sourceLocation: sourceLocation)
        let onlyOurs = try merge(a, x, a)
        #expect(onlyOurs == x, "\(name): merge(a, x, a) != x for a=\(a), x=\(x)", sourceLocation: sourceLocation)

        async let first = Task.detached { try merge(a, x, y) }.value
        async let second = Task.detached { try merge(a, x, y) }.value
        let (r, again) = try await (first, second)
        #expect(r == again, "\(name): two replicas disagree for a=\(a), x=\(x), y=\(y)", sourceLocation: sourceLocation)

        let remergeOurs = try merge(x, r, x)
        #expect(remergeOurs == r, "\(name): merging x into its merge result changed it; a=\(a), x=\(x), y=\(y), r=\(r)", sourceLocation: sourceLocation)
        let remergeTheirs = try merge(y, y, r)
        #expect(remergeTheirs == r, "\(name): merging y into its merge result changed it; a=\(a), x=\(x), y=\(y), r=\(r)", sourceLocation: sourceLocation)

        let salvaged = try salvage(x, x)
        #expect(salvaged == x, "\(name): salvage(x, x) != x for x=\(x)", sourceLocation: sourceLocation)
    }
}
