import ForkStore

/// A three-way merge for one kind of value, with a two-way salvage for values that share no
/// history.
///
/// ForkStore passes the sides as *dominant* and *subordinate*: the dominant side is the later
/// write (the higher hybrid logical clock), and where a strategy must choose, it picks that
/// side. Dominance depends only on the commits being merged, so every replica that merges the
/// same commits gets the same result.
///
/// Every strategy keeps these laws:
/// - one side unchanged: `merge(a, a, y) == y` and `merge(a, x, a) == x`;
/// - determinism: the same inputs always give the same result, on any replica.
///
/// Its ``laws`` name the family it belongs to and the further laws that come with it, which
/// `ForkStoreMergeTesting`'s `MergeLaws.check` verifies on generated values: registers, sets
/// and sequences are idempotent (`merge(a, x, x) == x`), counters are not (both sides' events
/// count), and so on (see ``MergeLawFamily``).
public protocol MergeStrategy<Value>: Sendable {
    /// The type of value the strategy merges.
    associatedtype Value

    /// A short name for reports and trailers, such as `text` or `add-wins-set`.
    var name: String { get }

    /// The family of laws the strategy keeps. The default, ``MergeLawFamily/convergent``,
    /// promises only the laws every strategy keeps.
    var laws: MergeLawFamily { get }

    /// Merges two values that both descend from `ancestor`.
    func merge(ancestor: Value, dominant: Value, subordinate: Value) throws -> Value

    /// Merges two values with no common ancestor. The default keeps `dominant`.
    func salvage(dominant: Value, subordinate: Value) throws -> Value
}

extension MergeStrategy {
    public func salvage(dominant: Value, subordinate: Value) throws -> Value { dominant }

    public var laws: MergeLawFamily { .convergent }
}

/// The laws a merge strategy promises beyond the two every strategy keeps (one side unchanged
/// gives the other; the same inputs give the same result on every replica).
public struct MergeLawFamily: Sendable, Hashable {
    /// Merging two equal sides gives that value (`merge(a, x, x) == x`), merging an input into
    /// the result again changes nothing, and salvaging a value with itself gives the value.
    public var idempotent: Bool
    /// The result does not depend on which side dominates: `merge(a, x, y) == merge(a, y, x)`.
    public var commutative: Bool
    /// Where both sides changed the value differently, the dominant (later) side's value is
    /// the result.
    public var dominantWins: Bool
    /// For integers: the result is the ancestor plus both sides' deltas, `x + y − a`
    /// (saturating at the type's bounds).
    public var counting: Bool

    /// A family with these laws.
    public init(idempotent: Bool = false, commutative: Bool = false, dominantWins: Bool = false, counting: Bool = false) {
        self.idempotent = idempotent
        self.commutative = commutative
        self.dominantWins = dominantWins
        self.counting = counting
    }

    /// Only the laws every strategy keeps.
    public static let convergent = MergeLawFamily()
    /// A register (``LastWriterWins``): idempotent, and the later write wins.
    public static let register = MergeLawFamily(idempotent: true, dominantWins: true)
    /// A set (``AddWinsSet``): idempotent and commutative.
    public static let set = MergeLawFamily(idempotent: true, commutative: true)
    /// A counter of events (``Counter``): commutative and counting, **not** idempotent: two
    /// sides that each added 6 added 12.
    public static let counter = MergeLawFamily(commutative: true, counting: true)
    /// A sequence (``TextMerge``, ``OrderedArrayMerge``): idempotent; conflicting regions go to
    /// the dominant side.
    public static let sequence = MergeLawFamily(idempotent: true)
}

/// Uses a value's own `Mergeable` conformance as a strategy, for nesting mergeable types
/// inside collections.
///
/// Family: ``MergeLawFamily/convergent`` (a type's own merge promises what it documents).
public struct MergeableStrategy<Value: Mergeable & Sendable>: MergeStrategy {
    /// Makes the strategy; the merge is the value type's own.
    public init() {}

    public var name: String { "mergeable" }

    public func merge(ancestor: Value, dominant: Value, subordinate: Value) throws -> Value {
        try dominant.merged(with: subordinate, ancestor: ancestor)
    }

    public func salvage(dominant: Value, subordinate: Value) throws -> Value {
        try dominant.salvaged(with: subordinate)
    }
}
