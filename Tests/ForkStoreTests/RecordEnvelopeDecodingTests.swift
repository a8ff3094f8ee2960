@testable import ForkStore
import Testing

/// A record blob's envelope is decoded with its members taken straight from the object, past
/// the synthesized `init(from:)`; it must accept exactly what that accepts, with the same
/// values, and fail with the same error.
@Suite("Decoding a record's envelope")
struct RecordEnvelopeDecodingTests {
    struct Card: Resource, Identifiable, Equatable {
        static let modelVersion = 1
        var id: String
        var title: String
        var tags: [String]?
    }

    /// Every envelope made of these members, present or not.
    static let documents: [JSONValue] = {
        let ids: [JSONValue?] = [nil, .string("a"), .string("é"), .number("5"), .null]
        let versions: [JSONValue?] = [
            nil, .null, .number("3"), .number("3.5"), .number("-1"), .number("1e400"), .number("99999999999999999999"),
            .string("3"), .bool(true),
        ]
        let records: [JSONValue?] = [
            nil, .null, .array([]), .string("card"),
            .object([.init(key: "id", value: .string("a")), .init(key: "title", value: .string("T"))]),
            .object([.init(key: "id", value: .string("a")), .init(key: "tags", value: .array([.string("x")])), .init(key: "title", value: .string("T"))]),
            .object([.init(key: "id", value: .string("a"))]),
            .object([.init(key: "id", value: .string("a")), .init(key: "title", value: .number("1"))]),
        ]
        var documents: [JSONValue] = [.null, .array([]), .string("a"), .object([])]
        for id in ids {
            for version in versions {
                for record in records {
                    var members: [JSONValue.Member] = []
                    if let id { members.append(.init(key: "id", value: id)) }
                    if let version { members.append(.init(key: "modelVersion", value: version)) }
                    if let record { members.append(.init(key: "record", value: record)) }
                    documents.append(.object(members))
                }
            }
        }
        // The parser refuses a key twice; a value made in code can hold it, and the last wins.
        documents.append(.object([.init(key: "id", value: .number("1")), .init(key: "id", value: .string("a")), .init(key: "record", value: records[4]!)]))
        documents.append(.object([.init(key: "id", value: .string("a")), .init(key: "id", value: .number("1")), .init(key: "record", value: records[4]!)]))
        return documents
    }()

    static func synthesized(_ document: JSONValue) throws -> RecordEnvelope<Card> {
        try JSONValueDecoder().decode(RecordEnvelope<Card>.self, from: document)
    }

    @Test func everyEnvelopeDecodesAsTheSynthesizedDecoderDecodesIt() {
        var decoded = 0
        for document in Self.documents {
            let direct = Result { try RecordEnvelope<Card>.decoded(from: document) }
            let expected = Result { try Self.synthesized(document) }
            switch (direct, expected) {
            case (.success(let direct), .success(let expected)):
                decoded += 1
                #expect(direct.id == expected.id, "\(document)")
                #expect(direct.modelVersion == expected.modelVersion, "\(document)")
                #expect(direct.record == expected.record, "\(document)")
            case (.failure(let direct), .failure(let expected)):
                #expect(String(describing: direct) == String(describing: expected), "\(document)")
            default:
                Issue.record("\(document): decoded as \(direct), the synthesized way as \(expected)")
            }
        }
        // Both ids that are strings, four versions that are whole or absent, two records that decode,
        // and the duplicate key whose last value is a string.
        #expect(decoded == 2 * 4 * 2 + 1)
    }

    @Test func aRecordThatDoesNotDecodeIsNamedBelowTheEnvelope() throws {
        let blob = Array(#"{"id":"a","modelVersion":1,"record":{"id":"a"}}"#.utf8)
        #expect(throws: StoreError.self) {
            do {
                _ = try ValueCodec.decoding(commit: CommitID(String(repeating: "0", count: 40))!, path: "records/a.json") {
                    try RecordEnvelope<Card>.decoded(from: CanonicalJSON.parse(blob))
                }
            } catch let error as StoreError {
                #expect(error.reason == "missing key 'title' at record")
                throw error
            }
        }
    }
}
