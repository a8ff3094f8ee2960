import ForkStore

/// A value that merges property by property, with a strategy per property and
/// last-writer-wins for every property it does not name.
///
/// ```swift
/// struct Note: PropertyMergeable {
///     static let modelVersion = 1
///     var title: String            // not named: last-writer-wins, per property
///     var body: String
///     var tags: Set<String>
///
///     static let mergeProperties = PropertyMerges<Note>()
///         .text(\.body)
///         .addWinsSet(\.tags)
/// }
/// ```
///
/// A concurrent edit of `title` on one device and of `body` on another keeps both: unnamed
/// properties are merged one by one, not as a whole value.
public protocol PropertyMergeable: Mergeable, Codable, Sendable {
    /// The strategies for named properties. The default names none.
    static var mergeProperties: PropertyMerges<Self> { get }
}

extension PropertyMergeable {
    public static var mergeProperties: PropertyMerges<Self> { PropertyMerges() }

    public func merged(with subordinate: Self, ancestor: Self) throws -> Self {
        try Self.mergeProperties.merge(ancestor: ancestor, dominant: self, subordinate: subordinate)
    }

    public func salvaged(with subordinate: Self) throws -> Self {
        try Self.mergeProperties.salvage(dominant: self, subordinate: subordinate)
    }
}
