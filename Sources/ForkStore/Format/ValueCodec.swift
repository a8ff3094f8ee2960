import Foundation

/// Encodes resources to canonical JSON and decodes them back, naming the commit on failure.
enum ValueCodec {
    static func encode<Value: Encodable>(_ value: Value) throws(StoreError) -> [UInt8] {
        CanonicalJSON.serialize(try json(value))
    }

    /// The canonical JSON of a value (see ``JSONValueEncoder``).
    static func json<Value: Encodable>(_ value: Value) throws(StoreError) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            throw StoreError.encodingFailed(reason: String(describing: error))
        }
    }

    /// Parses stored JSON strictly: invalid JSON, and objects with a key twice (which
    /// decoders disagree on), are ``StoreError/invalidJSON(commit:path:reason:)``.
    static func parse(_ bytes: [UInt8], commit: CommitID, path: String) throws(StoreError) -> JSONValue {
        do {
            return try CanonicalJSON.parse(bytes)
        } catch {
            throw StoreError.invalidJSON(commit: commit, path: path, reason: error.description)
        }
    }

    /// Decodes stored JSON after parsing it strictly (see ``parse(_:commit:path:)``).
    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], commit: CommitID, path: String
    ) throws(StoreError) -> Value {
        try decode(type, from: parse(bytes, commit: commit, path: path), commit: commit, path: path)
    }

    /// Decodes JSON already parsed strictly, as `JSONDecoder` would decode its text.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from json: JSONValue, commit: CommitID, path: String
    ) throws(StoreError) -> Value {
        try decoding(commit: commit, path: path) { try JSONValueDecoder().decode(Value.self, from: json) }
    }

    /// Runs a decoding, its failure turned into the error a stored value that does not decode is.
    static func decoding<Value>(commit: CommitID, path: String, _ body: () throws -> Value) throws(StoreError) -> Value {
        do {
            return try body()
        } catch {
            throw StoreError.undecodableValue(commit: commit, path: path, reason: describe(error))
        }
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
