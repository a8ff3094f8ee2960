import ForkStore

/// A three-way merge for one kind of value, with a two-way salvage for values that share no
/// history.
///
/// ForkStore passes the sides as *dominant* and *subordinate*: where a strategy must choose,
/// it picks the dominant side. Dominance depends only on the commits being merged, so every
/// replica that merges the same commits gets the same result.
///
/// Every strategy must keep these laws (`ForkStoreMergeTesting` checks them):
/// - both sides equal: `merge(a, x, x) == x`;
/// - one side unchanged: `merge(a, a, x) == x` and `merge(a, x, a) == x`;
/// - determinism: the same inputs always give the same result, on any replica;
/// - stability: merging an input into the result again, with that input as the ancestor,
///   returns the result.
public protocol MergeStrategy<Value>: Sendable {
    associatedtype Value

    /// A short name for reports and trailers, such as `text` or `add-wins-set`.
    var name: String { get }

    /// Merges two values that both descend from `ancestor`.
    func merge(ancestor: Value, dominant: Value, subordinate: Value) throws -> Value

    /// Merges two values with no common ancestor. The default keeps `dominant`.
    func salvage(dominant: Value, subordinate: Value) throws -> Value
}

extension MergeStrategy {
    public func salvage(dominant: Value, subordinate: Value) throws -> Value { dominant }
}

/// Uses a value's own `Mergeable` conformance as a strategy, for nesting mergeable types
/// inside collections.
public struct MergeableStrategy<Value: Mergeable & Sendable>: MergeStrategy {
    public init() {}

    public var name: String { "mergeable" }

    public func merge(ancestor: Value, dominant: Value, subordinate: Value) throws -> Value {
        try dominant.merged(with: subordinate, ancestor: ancestor)
    }

    public func salvage(dominant: Value, subordinate: Value) throws -> Value {
        try dominant.salvaged(with: subordinate)
    }
}
