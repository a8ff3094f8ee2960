import Foundation

/// A machine-readable description of a model version's stored shape: each stored property with
/// its Swift type and whether it may be absent. Generated from a sample value and checked in
/// (for example under `Schema/`), one file per model version, so that the next version can be
/// compared with it.
///
/// Property names are the Swift names (from `Mirror`); they are the stored JSON keys unless
/// the type's `CodingKeys` rename them.
public struct SchemaSnapshot: Codable, Sendable, Equatable {
    /// One stored property.
    public struct Field: Codable, Sendable, Equatable {
        /// The Swift type without `Optional`, e.g. `String`, `Set<String>`, `Date`.
        public var type: String
        /// Whether the property is optional (may be absent from stored data).
        public var optional: Bool

        /// Describes a property of Swift type `type` (without `Optional`), optional or not.
        public init(type: String, optional: Bool) {
            self.type = type
            self.optional = optional
        }
    }

    /// The resource type's name.
    public var type: String
    /// The model version the snapshot describes.
    public var modelVersion: Int
    /// Property name → field.
    public var fields: [String: Field]

    /// Makes a snapshot by hand; ``init(of:)`` makes one from a sample value.
    public init(type: String, modelVersion: Int, fields: [String: Field]) {
        self.type = type
        self.modelVersion = modelVersion
        self.fields = fields
    }

    /// The snapshot of `Value`'s current model version, read from a sample value.
    public init<Value: Resource>(of sample: Value) {
        var fields: [String: Field] = [:]
        for child in Mirror(reflecting: sample).children {
            guard var name = child.label else { continue }
            if name.hasPrefix("_") { name.removeFirst() }  // property wrappers store `_name`
            let optional = Mirror(reflecting: child.value).displayStyle == .optional
            var typeName = String(describing: Swift.type(of: child.value))
            if optional, typeName.hasPrefix("Optional<"), typeName.hasSuffix(">") {
                typeName = String(typeName.dropFirst("Optional<".count).dropLast())
            }
            fields[name] = Field(type: typeName, optional: optional)
        }
        self.init(type: String(describing: Value.self), modelVersion: Value.modelVersion, fields: fields)
    }

    /// The snapshot in canonical JSON, as checked in.
    public func encoded() throws -> [UInt8] {
        try ValueCodec.encode(self)
    }

    /// Reads a checked-in snapshot.
    public static func decoded(from bytes: [UInt8]) throws -> SchemaSnapshot {
        try JSONDecoder().decode(SchemaSnapshot.self, from: Data(bytes))
    }

    /// The changes from `old` to `new` that can break reading old data: a removed property, a
    /// changed type, an optional property made required, a likely rename. Empty when a custom
    /// stage of `plan` spans the two versions, since app code then transforms the data.
    public static func riskyChanges(from old: SchemaSnapshot, to new: SchemaSnapshot, plan: MigrationPlan) -> [RiskyChange] {
        let handled = plan.stages.contains { $0.isCustom && $0.from >= old.modelVersion && $0.to <= new.modelVersion }
        guard !handled else { return [] }
        var risky: [RiskyChange] = []
        let removed = old.fields.keys.filter { new.fields[$0] == nil }.sorted()
        let added = new.fields.keys.filter { old.fields[$0] == nil }.sorted()
        var renamedTargets = Set<String>()
        for name in removed {
            if let target = added.first(where: { !renamedTargets.contains($0) && new.fields[$0] == old.fields[name] }) {
                renamedTargets.insert(target)
                risky.append(RiskyChange(kind: .renamed(to: target), field: name))
            } else {
                risky.append(RiskyChange(kind: .removed, field: name))
            }
        }
        for name in old.fields.keys.sorted() {
            guard let before = old.fields[name], let after = new.fields[name] else { continue }
            if before.type != after.type {
                risky.append(RiskyChange(kind: .typeChanged(from: before.type, to: after.type), field: name))
            } else if before.optional, !after.optional {
                risky.append(RiskyChange(kind: .madeRequired, field: name))
            }
        }
        for name in added where !renamedTargets.contains(name) && new.fields[name]?.optional == false {
            let defaulted = plan.stages.contains { $0.from >= old.modelVersion && $0.to <= new.modelVersion && $0.defaults.keys.contains(name) }
            if !defaulted { risky.append(RiskyChange(kind: .addedRequired, field: name)) }
        }
        return risky
    }
}

/// A schema change between two model versions that can break reading older data unless a
/// custom migration stage handles it.
public struct RiskyChange: Sendable, Equatable, CustomStringConvertible {
    /// What changed about the property.
    public enum Kind: Sendable, Equatable {
        /// The property is gone: its stored values would be dropped.
        case removed
        /// Probably renamed: a property of the same type appeared.
        case renamed(to: String)
        /// The stored values have another type now.
        case typeChanged(from: String, to: String)
        /// An optional property became required: old data may lack it.
        case madeRequired
        /// A new required property without a default in a lightweight stage: old data lacks it.
        case addedRequired
    }

    /// What changed.
    public let kind: Kind
    /// The property, by its name in the older version.
    public let field: String

    /// Makes a report of `kind` about `field`, as ``SchemaSnapshot/riskyChanges(from:to:plan:)``
    /// does; for comparing its results in tests.
    public init(kind: Kind, field: String) {
        self.kind = kind
        self.field = field
    }

    public var description: String {
        switch kind {
        case .removed: "'\(field)' was removed"
        case .renamed(let target): "'\(field)' looks renamed to '\(target)'"
        case .typeChanged(let from, let to): "'\(field)' changed type from \(from) to \(to)"
        case .madeRequired: "'\(field)' was optional and is now required"
        case .addedRequired: "'\(field)' is new and required, with no default"
        }
    }
}

