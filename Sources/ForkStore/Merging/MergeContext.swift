import Foundation
import ForkStoreLocks

/// The merge in progress, visible to strategies while the store merges a value.
///
/// Strategies report conflicts here and name the strategies that ran; the store turns them
/// into the merge report and the commit's trailers. Outside a store merge (for example in a
/// unit test of a strategy) there is no current context and reporting does nothing, unless
/// the test sets one up with ``MergeContext/collecting(dominantIsOurs:resolver:removalPolicy:_:)``.
public final class MergeContext: Sendable {
    @TaskLocal static var current: MergeContext?

    private struct State {
        var conflicts: [MergeConflict] = []
        var strategies: Set<String> = []
        var path: [String] = []
    }

    private let state = Locked(State())
    /// Whether the dominant side of this merge is the fork merged into.
    let dominantIsOurs: Bool
    let resolver: ConflictResolver?
    let removalPolicy: RemovalPolicy

    init(dominantIsOurs: Bool, resolver: ConflictResolver?, removalPolicy: RemovalPolicy) {
        self.dominantIsOurs = dominantIsOurs
        self.resolver = resolver
        self.removalPolicy = removalPolicy
    }

    /// Runs `body` with a fresh context and returns its result with the conflicts reported.
    public static func collecting<Result>(
        dominantIsOurs: Bool = true, resolver: ConflictResolver? = nil, removalPolicy: RemovalPolicy = .latestWins,
        _ body: () throws -> Result
    ) rethrows -> (result: Result, conflicts: [MergeConflict], strategies: [String]) {
        let context = MergeContext(dominantIsOurs: dominantIsOurs, resolver: resolver, removalPolicy: removalPolicy)
        let result = try $current.withValue(context) { try body() }
        return (result, context.conflicts, context.strategies)
    }

    var conflicts: [MergeConflict] { state.withLock { $0.conflicts } }
    var strategies: [String] { state.withLock { $0.strategies.sorted() } }

    // MARK: For strategies

    /// The store's ``RemovalPolicy`` for the merge in progress (``StoreOptions/removalPolicy``);
    /// ``RemovalPolicy/latestWins`` outside a store merge.
    public static var removalPolicy: RemovalPolicy { current?.removalPolicy ?? .latestWins }

    /// Decides a removal against an edit by `policy` (the store's when nil) and reports it:
    /// returns the value to keep, nil for the removal. `dominant` is the later side.
    public static func removalConflict<Value: Codable>(
        ancestor: Value?, dominant: Value?, subordinate: Value?, policy: RemovalPolicy? = nil
    ) throws -> Value? {
        let edited = dominant ?? subordinate
        switch policy ?? removalPolicy {
        case .editWins:
            return try conflict(
                strategy: MergeDecision.editWinsOverRemoval.rawValue, ancestor: ancestor, dominant: dominant,
                subordinate: subordinate, chosen: edited)
        case .latestWins:
            return try conflict(
                strategy: dominant == nil ? MergeDecision.removalWins.rawValue : MergeDecision.editWinsOverRemoval.rawValue,
                ancestor: ancestor, dominant: dominant, subordinate: subordinate, chosen: dominant)
        }
    }

    /// Merges a part of the value below `component` (a property name, a key, an id), so that
    /// conflicts found inside carry the full path.
    public static func inside<Result>(_ component: String, _ body: () throws -> Result) rethrows -> Result {
        guard let context = current else { return try body() }
        context.state.withLock { $0.path.append(component) }
        defer { context.state.withLock { _ = $0.path.popLast() } }
        return try body()
    }

    /// Notes that a strategy ran a real three-way merge (both sides had changed).
    public static func strategyRan(_ name: String) {
        current?.state.withLock { _ = $0.strategies.insert(name) }
    }

    /// Reports a conflict the store decided by a rule the app may not override (the
    /// participants: peers accept only what the rule gives).
    static func report(_ conflict: MergeConflict) {
        current?.state.withLock { $0.conflicts.append(conflict) }
    }

    /// Reports a conflict a strategy decided, asks the app's resolver, and returns the value
    /// to use: `chosen`, or the app's override.
    public static func conflict<Value: Codable>(
        strategy: String, ancestor: Value?, dominant: Value?, subordinate: Value?, chosen: Value?
    ) throws -> Value? {
        guard current != nil else { return chosen }
        let chosenJSON = try json(chosen)
        let decision = conflict(
            strategy: strategy, ancestor: try json(ancestor), dominant: try json(dominant),
            subordinate: try json(subordinate), chosen: chosenJSON)
        guard decision != chosenJSON else { return chosen }
        return try decision.map { try decode($0, as: Value.self) }
    }

    /// Reports a conflict on raw JSON (for strategies that merge encoded values) and returns
    /// the JSON to use: `chosen`, or the app's override.
    public static func conflict(
        strategy: String, ancestor: JSONValue?, dominant: JSONValue?, subordinate: JSONValue?, chosen: JSONValue?
    ) -> JSONValue? {
        guard let context = current else { return chosen }
        let ours = context.dominantIsOurs ? dominant : subordinate
        let theirs = context.dominantIsOurs ? subordinate : dominant
        let path = context.state.withLock { JSONPointer.string($0.path) }
        var report = MergeConflict(
            path: path, strategy: strategy, ancestor: ancestor, ours: ours, theirs: theirs, decision: chosen)
        var result = chosen
        if let resolution = context.resolver?(report), resolution != .keep {
            switch resolution {
            case .keep: break
            case .ours: result = ours
            case .theirs: result = theirs
            case .value(let value): result = value
            }
            report = MergeConflict(
                path: path, strategy: strategy, ancestor: ancestor, ours: ours, theirs: theirs,
                decision: result, overriddenByApp: true)
        }
        let final = report
        context.state.withLock { $0.conflicts.append(final) }
        return result
    }

    private static func json<Value: Encodable>(_ value: Value?) throws -> JSONValue? {
        guard let value else { return nil }
        return try ValueCodec.json(value)
    }

    private static func decode<Value: Decodable>(_ json: JSONValue, as type: Value.Type) throws -> Value {
        do {
            return try JSONValueDecoder().decode(Value.self, from: json)
        } catch {
            throw StoreError.mergeFailed(reason: "the conflict resolver returned a value that is not a \(Value.self): \(error)")
        }
    }
}
