/// What a record blob holds: the exact id beside the record (so the file name never needs
/// decoding) and the model version that wrote it (a commit's tree keeps records written by
/// older versions, so the commit's stamp does not say how each record is shaped).
struct RecordEnvelope<Record: Resource>: Codable {
    var id: String
    var modelVersion: Int?
    var record: Record

    init(id: String, modelVersion: Int, record: Record) {
        self.id = id
        self.modelVersion = modelVersion
        self.record = record
    }
}

extension RecordEnvelope {
    /// The envelope a parsed record blob holds, decoded as the synthesized `init(from:)`
    /// decodes it, but with its members taken from the object directly rather than through a
    /// keyed container of this generic type, whose metadata Swift looks up for every record
    /// (about 5% of a listing's processor time). A document this way does not take (not an
    /// object, a member missing or of the wrong kind, a record that does not decode) is
    /// decoded again the synthesized way, so what is accepted, and every error, is its.
    static func decoded(from document: JSONValue) throws -> RecordEnvelope {
        if case .object(let members) = document {
            func member(_ key: String) -> JSONValue? { members.last { $0.key.hasSameBytes(as: key) }?.value }
            if case .string(let id)? = member("id"), let record = member("record"),
                let modelVersion = Self.modelVersion(member("modelVersion")),
                let record = try? JSONValueDecoder().decode(Record.self, from: record, at: EnvelopeKey.record)
            {
                return RecordEnvelope(id: id, modelVersion: modelVersion, record: record)
            }
        }
        return try JSONValueDecoder().decode(Self.self, from: document)
    }

    /// The `modelVersion` member as `decodeIfPresent` reads it: `.some(nil)` when absent or
    /// null, nil when it does not decode as an `Int`.
    private static func modelVersion(_ member: JSONValue?) -> Int?? {
        guard let member, member != .null else { return .some(nil) }
        guard let version = try? JSONValueDecoder().decode(Int.self, from: member) else { return nil }
        return .some(version)
    }

    private init(id: String, modelVersion: Int?, record: Record) {
        (self.id, self.modelVersion, self.record) = (id, modelVersion, record)
    }
}

/// The envelope's key for the record, as a path below it names it in errors (`record.title`).
private enum EnvelopeKey: String, CodingKey {
    case record
}
