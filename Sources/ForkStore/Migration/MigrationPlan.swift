import Foundation

/// What a migration stage knows about the data it upgrades: only what the stored data itself
/// fixes, so that reading the same blob always migrates to the same value, whichever commit,
/// fork or replica it is read from, and whenever. (No commit and no date: the same record
/// appears in many commits, and a value computed from the head's date would change each time
/// the head moves, so merges would see changes nobody made.)
public struct MigrationContext: Sendable {
    /// The model version the data had before this stage.
    public let fromVersion: Int
    /// The record's id in a record collection; nil for a single-value store.
    public let recordID: String?
}

/// One step of a ``MigrationPlan``: upgrades stored JSON from model version `from` to `to`.
///
/// Stages work on the stored JSON, not on Swift types, so the app needs no copy of its old
/// types to read old data.
public struct MigrationStage: Sendable {
    /// The version this stage reads.
    public let from: Int
    /// The version it produces.
    public let to: Int
    /// Whether the stage transforms data with app code (a custom stage) rather than only adding
    /// defaults. Risky schema changes between `from` and `to` need a custom stage.
    public let isCustom: Bool
    /// For a lightweight stage, the defaults it fills in.
    public let defaults: [String: JSONValue]
    let migrate: @Sendable (inout JSONValue, MigrationContext) throws -> Void

    /// An additive change: properties added in `to` get these default values when the stored
    /// object lacks them. New optional properties need no default.
    public static func lightweight(from: Int, to: Int, defaults: [String: JSONValue] = [:]) -> MigrationStage {
        MigrationStage(from: from, to: to, isCustom: false, defaults: defaults) { json, _ in
            for (key, value) in defaults.sorted(by: { $0.key < $1.key }) where json[key] == nil {
                json[key] = value
            }
        }
    }

    /// A change that transforms the stored data: renames, type changes, values computed from
    /// others. The transform must depend only on the JSON and the ``MigrationContext``.
    ///
    /// ```swift
    /// .custom(from: 1, to: 2) { json, _ in
    ///     let done = json["done"] == .bool(true)
    ///     json["done"] = nil
    ///     // When a version-1 note was done is not known: 0 (2001-01-01) says so.
    ///     if done { json["completedAt"] = .number("0") }
    /// }
    /// ```
    public static func custom(
        from: Int, to: Int, _ transform: @escaping @Sendable (inout JSONValue, MigrationContext) throws -> Void
    ) -> MigrationStage {
        MigrationStage(from: from, to: to, isCustom: true, defaults: [:], migrate: transform)
    }
}

/// The ordered stages that bring data written by older model versions up to the current one,
/// in the spirit of SwiftData's `SchemaMigrationPlan` and GRDB's `DatabaseMigrator`.
///
/// ```swift
/// struct Note: Resource {
///     static let modelVersion = 3
///     static let migrationPlan = MigrationPlan([
///         .lightweight(from: 1, to: 2, defaults: ["pinned": .bool(false)]),
///         .custom(from: 2, to: 3) { json, _ in … },
///     ])
/// }
/// ```
///
/// Stages run when older commits are read and before a merge, so ancestor, ours and theirs are
/// all in the current version when the merge strategy runs. Writes always stamp the current
/// version. A plan with a gap, or a current version no stage reaches, is refused when the store
/// is opened (``StoreError/invalidMigrationPlan(reason:)``).
public struct MigrationPlan: Sendable {
    /// The stages, in order.
    public let stages: [MigrationStage]

    /// A plan with these stages, in order.
    public init(_ stages: [MigrationStage] = []) {
        self.stages = stages
    }

    /// The oldest model version the plan can read: the first stage's `from`, or `current` when
    /// there are no stages.
    func oldestVersion(current: Int) -> Int {
        relevantStages(current: current).first?.from ?? current
    }

    /// The stages up to `current` (a build running an older version ignores later ones).
    private func relevantStages(current: Int) -> [MigrationStage] {
        stages.filter { $0.to <= current }
    }

    /// Throws unless the stages chain without gaps up to `current`.
    func validate(current: Int, type: String) throws(StoreError) {
        let relevant = relevantStages(current: current)
        for stage in stages where stage.from >= stage.to {
            throw StoreError.invalidMigrationPlan(reason: "\(type): a stage goes from \(stage.from) to \(stage.to); stages must go up")
        }
        for (previous, next) in zip(relevant, relevant.dropFirst()) where previous.to != next.from {
            throw StoreError.invalidMigrationPlan(
                reason: "\(type): the stages jump from version \(previous.to) to \(next.from); add a stage from \(previous.to)")
        }
        if current > 1, relevant.last?.to != current {
            let reached = relevant.last?.to
            throw StoreError.invalidMigrationPlan(
                reason: "\(type) declares model version \(current), but " + (reached.map { "the stages stop at version \($0)" } ?? "no stage reaches it")
                    + "; add a stage to \(current) (a lightweight one for additive changes)")
        }
    }

    /// Upgrades `json` from `version` to `current`.
    func migrate(_ json: inout JSONValue, from version: Int, to current: Int, recordID: String?) throws {
        var version = version
        for stage in relevantStages(current: current) where stage.from == version {
            try stage.migrate(&json, MigrationContext(fromVersion: version, recordID: recordID))
            version = stage.to
        }
    }
}
