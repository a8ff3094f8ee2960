import Foundation

/// Encodes resources to canonical JSON and decodes them back, naming the commit on failure.
enum ValueCodec {
    /// Where a single-value resource lives in a commit's tree.
    static let valuePath = "value.json"

    static func encode<Value: Encodable>(_ value: Value) throws(StoreError) -> [UInt8] {
        let raw: Data
        do {
            raw = try JSONEncoder().encode(value)
        } catch {
            throw StoreError.encodingFailed(reason: String(describing: error))
        }
        do {
            return try CanonicalJSON.canonicalize(Array(raw))
        } catch {
            throw StoreError.encodingFailed(reason: error.description)
        }
    }

    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], commit: CommitID, path: String
    ) throws(StoreError) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: Data(bytes))
        } catch {
            // Only a failure pays for the strict parse that tells bad JSON from a wrong shape.
            do {
                _ = try CanonicalJSON.parse(bytes)
            } catch {
                throw StoreError.invalidJSON(commit: commit, path: path, reason: error.description)
            }
            throw StoreError.undecodableValue(commit: commit, path: path, reason: describe(error))
        }
    }

    /// The bytes to decode for `Value` from a blob of `commit`: unchanged when the commit has
    /// the current model version, otherwise run through the migration plan (on the object in
    /// `member` when given, such as a record envelope's `record`).
    static func migrated<Value: Resource>(
        _ bytes: [UInt8], for type: Value.Type, commit: Commit, path: String, member: String? = nil
    ) throws(StoreError) -> [UInt8] {
        guard let commitVersion = commit.modelVersion, commitVersion <= Value.modelVersion else { return bytes }
        if member == nil, commitVersion == Value.modelVersion { return bytes }
        var document: JSONValue
        do {
            document = try CanonicalJSON.parse(bytes)
        } catch {
            throw StoreError.invalidJSON(commit: commit.id, path: path, reason: error.description)
        }
        // A record carries the version that wrote it; a single value is as old as its commit.
        var version = commitVersion
        if member != nil, case .number(let literal)? = document["modelVersion"], let stamped = Int(literal) {
            version = stamped
        }
        guard version <= Value.modelVersion else {
            throw StoreError.unknownModelVersion(found: version, known: Value.modelVersion, commit: commit.id)
        }
        let oldest = Value.migrationPlan.oldestVersion(current: Value.modelVersion)
        guard version >= oldest || version == Value.modelVersion else {
            throw StoreError.unsupportedModelVersion(found: version, oldest: oldest, commit: commit.id)
        }
        guard version < Value.modelVersion else { return bytes }
        var json = member.map { document[$0] ?? .null } ?? document
        do {
            try Value.migrationPlan.migrate(&json, from: version, to: Value.modelVersion, commit: commit)
        } catch {
            throw StoreError.migrationFailed(commit: commit.id, path: path, fromVersion: version, reason: String(describing: error))
        }
        if let member {
            document[member] = json
            document["modelVersion"] = .number(String(Value.modelVersion))
        } else {
            document = json
        }
        return CanonicalJSON.serialize(document)
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing key '\(key.stringValue)' at \(path(context))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context)): \(context.debugDescription)"
        case .valueNotFound(_, let context): return "missing value at \(path(context))"
        case .dataCorrupted(let context): return "corrupt data at \(path(context)): \(context.debugDescription)"
        @unknown default: return String(describing: error)
        }
    }
}
