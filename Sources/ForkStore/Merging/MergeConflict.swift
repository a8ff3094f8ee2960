/// One place where a merge had to choose because both sides changed the same thing.
///
/// Values are given as JSON so that a report can be logged, shown or stored whatever the
/// property's type. *Ours* is the fork merged into, *theirs* the fork merged from.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// Where in the value, as a JSON Pointer (`/notes/4f2a/title`); empty for the whole value.
    public let path: String
    /// The strategy that decided, such as `last-writer-wins` or `text`.
    public let strategy: String
    /// The common ancestor's value; nil when absent (added on both sides).
    public let ancestor: JSONValue?
    /// The value on the fork merged into; nil when it removed the value.
    public let ours: JSONValue?
    /// The value on the fork merged from; nil when it removed the value.
    public let theirs: JSONValue?
    /// What the merge kept.
    public let decision: JSONValue?
    /// Whether the app's ``ConflictResolver`` changed the strategy's decision.
    public let overriddenByApp: Bool

    /// Makes a conflict report. Strategies report conflicts through ``MergeContext``'s
    /// `conflict` methods, which make them; this is for comparing reports in tests.
    public init(
        path: String, strategy: String, ancestor: JSONValue?, ours: JSONValue?, theirs: JSONValue?,
        decision: JSONValue?, overriddenByApp: Bool = false
    ) {
        self.path = path
        self.strategy = strategy
        self.ancestor = ancestor
        self.ours = ours
        self.theirs = theirs
        self.decision = decision
        self.overriddenByApp = overriddenByApp
    }

    /// How the conflict is written in a `Merge-Conflict` trailer: the path with `%` and
    /// control characters percent-encoded (so it stays on its line and reads back exactly),
    /// then the strategy in parentheses: `/notes/4f2a/title (last-writer-wins)`, or
    /// `(last-writer-wins, resolved by the app)` for the whole value.
    public var description: String {
        let decided = "(\(TrailerText.escapingAllButUnreserved(strategy))\(overriddenByApp ? ", resolved by the app" : ""))"
        return path.isEmpty ? decided : TrailerText.escapingControls(path) + " " + decided
    }
}

/// What the app decides for a conflict.
public enum ConflictResolution: Sendable, Hashable {
    /// Keep the strategy's decision.
    case keep
    /// Take the value of the fork merged into.
    case ours
    /// Take the value of the fork merged from.
    case theirs
    /// Take this value, which must decode as the property's type.
    case value(JSONValue)
}

/// Called for every conflict a merge meets; returns the decision to use.
///
/// Choosing ``ConflictResolution/ours`` or ``ConflictResolution/theirs`` makes the result
/// depend on which replica runs the merge; prefer ``ConflictResolution/keep`` or a value
/// computed from the conflict's contents when replicas must converge.
///
/// The resolver runs while the store is locked: decide from the conflict alone and never call
/// the store from inside it (its lock is not reentrant).
public typealias ConflictResolver = @Sendable (MergeConflict) -> ConflictResolution
