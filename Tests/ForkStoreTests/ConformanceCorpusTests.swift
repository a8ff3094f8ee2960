import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// The library against Schema/conformance/, the corpus any other implementation of the format
/// can check itself against: stores built by `git fast-import` with the JSON a reader must
/// produce or the refusal it must give, and tables of numbers, record paths and messages.
@Suite("Conformance corpus")
struct ConformanceCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Schema/conformance")

    static func json(_ name: String) throws -> JSONValue {
        try CanonicalJSON.parse(Array(Data(contentsOf: corpus.appendingPathComponent(name))))
    }

    static var storeCases: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent("stores").path).sorted()) ?? []
    }

    @Test func theCorpusIsThere() {
        #expect(Self.storeCases.count >= 16)
    }

    /// Any JSON, as a reader with no types of its own sees it.
    enum AnyJSON: Codable, Sendable, Equatable {
        case null, bool(Bool), integer(Int64), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
            else if let integer = try? container.decode(Int64.self) { self = .integer(integer) }
            else if let number = try? container.decode(Double.self) { self = .number(number) }
            else if let text = try? container.decode(String.self) { self = .string(text) }
            else if let elements = try? container.decode([AnyJSON].self) { self = .array(elements) }
            else { self = .object(try container.decode([String: AnyJSON].self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let flag): try container.encode(flag)
            case .integer(let integer): try container.encode(integer)
            case .number(let number): try container.encode(number)
            case .string(let text): try container.encode(text)
            case .array(let elements): try container.encode(elements)
            case .object(let members): try container.encode(members)
            }
        }

        /// The same value as the corpus writes it.
        var canonical: JSONValue {
            get throws { try CanonicalJSON.parse(CanonicalJSON.canonicalize(Array(JSONEncoder().encode(self)))) }
        }
    }

    struct AnyRecord: Resource, Identifiable {
        static let modelVersion = 1
        var id: String
        var json: AnyJSON

        init(from decoder: any Decoder) throws {
            json = try AnyJSON(from: decoder)
            guard case .object(let members) = json, case .string(let id)? = members["id"] else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a record holds its id"))
            }
            self.id = id
        }

        func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
    }

    struct AnyValue: Resource {
        static let modelVersion = 1
        var json: AnyJSON
        init(from decoder: any Decoder) throws { json = try AnyJSON(from: decoder) }
        func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
    }

    /// The corpus's name for each refusal.
    static func kind(of error: any Error) -> String {
        switch error {
        case StoreError.notAStore: "not-a-store"
        case StoreError.newerFormatVersion: "newer-format"
        case StoreError.malformedCommit: "malformed-commit"
        case StoreError.missingModelVersion: "missing-model-version"
        case StoreError.unknownModelVersion: "unknown-model-version"
        case StoreError.invalidJSON: "invalid-json"
        default: "other: \(error)"
        }
    }

    /// Builds a case's store the way FORMAT.md tells another implementation to.
    static func build(_ name: String, in folder: TemporaryFolder) async throws -> String {
        let source = corpus.appendingPathComponent("stores/\(name)")
        let path = folder.child(name)
        try await git("init", "--bare", "-q", path)
        try await git("--git-dir", path, "symbolic-ref", "HEAD", "refs/heads/main")
        try FileManager.default.copyItem(atPath: source.appendingPathComponent("forkstore.json").path, toPath: path + "/forkstore.json")
        let stream = try String(contentsOf: source.appendingPathComponent("import.fi"), encoding: .utf8)
        let imported = try await git("--git-dir", path, "fast-import", "--quiet", input: stream)
        #expect(imported.status == 0, "\(imported.stderr)")
        return path
    }

    @Test(arguments: storeCases)
    func aStoreReadsAsTheCorpusSays(_ name: String) async throws {
        let folder = TemporaryFolder()
        let path = try await Self.build(name, in: folder)
        let expected = try Self.json("stores/\(name)/expected.json")
        if case .string(let refusal)? = expected["refused"] {
            do {
                _ = try await Store<AnyValue>.open(at: path)
                Issue.record("\(name): opened, but the corpus says it is refused as \(refusal)")
            } catch {
                #expect(Self.kind(of: error) == refusal, "\(name)")
            }
            return
        }
        guard case .object(let forks)? = expected["forks"] else {
            Issue.record("\(name): no forks")
            return
        }
        let isRecords = expected["resource"] == .string("records")
        let records = isRecords ? try await RecordStore<AnyRecord>.open(at: path) : nil
        let values = isRecords ? nil : try await Store<AnyValue>.open(at: path)
        for member in forks {
            let fork = try Fork(member.key)
            let want = member.value
            if case .string(let refusal)? = want["refused"] {
                do {
                    if let records { _ = try await records.records(in: fork) } else { _ = try await values?.value(in: fork) }
                    Issue.record("\(name)/\(fork): read, but the corpus says it is refused as \(refusal)")
                } catch {
                    #expect(Self.kind(of: error) == refusal, "\(name)/\(fork)")
                }
            } else if let records {
                let (found, problems) = try await records.recordsAndProblems(in: fork)
                let listed = try found.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
                    .map { JSONValue.object([.init(key: "id", value: .string($0.id)), .init(key: "record", value: try $0.json.canonical)]) }
                #expect(JSONValue.array(listed) == want["records"], "\(name)/\(fork)")
                #expect(JSONValue.array(problems.map { .string($0.path) }) == want["problems"], "\(name)/\(fork)")
                #expect(want["count"] == .number(String(try await records.count(in: fork))), "\(name)/\(fork)")
                if want["assets"] != nil || want["malformedAssets"] != nil {
                    var assets: [JSONValue.Member] = [], malformed: [JSONValue.Member] = []
                    for record in found {
                        let (referenced, refused) = try Self.assetReferences(in: record.json.canonical)
                        if case .array(let list) = referenced, !list.isEmpty { assets.append(.init(key: record.id, value: referenced)) }
                        if case .array(let list) = refused, !list.isEmpty { malformed.append(.init(key: record.id, value: refused)) }
                    }
                    let sorted = { (members: [JSONValue.Member]) in
                        JSONValue.object(members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
                    }
                    #expect(sorted(assets) == want["assets"], "\(name)/\(fork)")
                    #expect(sorted(malformed) == want["malformedAssets"], "\(name)/\(fork)")
                }
            } else {
                let value = try await values?.value(in: fork)
                #expect(try value.map { try $0.json.canonical } ?? .null == want["value"], "\(name)/\(fork)")
                if want["assets"] != nil, let value {
                    let (referenced, refused) = try Self.assetReferences(in: value.json.canonical)
                    #expect(referenced == want["assets"], "\(name)/\(fork)")
                    #expect(refused == want["malformedAssets"], "\(name)/\(fork)")
                }
            }
        }
    }

    /// The asset references a reader finds in a record or value (FORMAT.md 13.1), as the corpus
    /// writes them: each well-formed one as `Asset` writes it back, and the JSON Pointer of
    /// each one a remote would refuse.
    static func assetReferences(in json: JSONValue) throws -> (assets: JSONValue, malformed: JSONValue) {
        let references = AssetReferences(in: json)
        return (.array(try references.assets.map { try JSONValueEncoder().encode($0) }), .array(references.problems.map { .string($0.pointer) }))
    }

    @Test func numbersHaveTheCanonicalFormsOfTheTable() throws {
        guard case .array(let rows) = try Self.json("numbers.json") else {
            Issue.record("numbers.json is not an array")
            return
        }
        #expect(rows.count > 20)
        for row in rows {
            guard case .string(let literal)? = row["literal"] else { continue }
            if case .string(let canonical)? = row["canonical"] {
                #expect(try CanonicalJSON.canonicalize(Array(literal.utf8)) == Array((canonical + "\n").utf8), "\(literal)")
            } else {
                #expect(throws: CanonicalJSONError.self, "\(literal)") { try CanonicalJSON.parse(Array(literal.utf8)) }
            }
        }
    }

    @Test func recordPathsAreThoseOfTheTable() throws {
        guard case .array(let rows) = try Self.json("record-paths.json") else {
            Issue.record("record-paths.json is not an array")
            return
        }
        for row in rows {
            guard case .string(let id)? = row["id"], case .string(let path)? = row["path"] else { continue }
            #expect(RecordPath(id: id).description == path, "\(id.debugDescription)")
        }
    }

    /// Each message of the table, committed by hand: the library reads the trailers and text
    /// the table gives (and refuses the malformed ones), and stock git reads the same trailers.
    @Test func messagesReadAsTheTableSays() async throws {
        guard case .array(let rows) = try Self.json("messages.json") else {
            Issue.record("messages.json is not an array")
            return
        }
        let folder = TemporaryFolder()
        let store = try await Store<AnyValue>.create(at: folder.child("store"))
        let tree = try await git("--git-dir", store.path, "rev-parse", "main^{tree}").stdout.trimmed
        for row in rows {
            guard case .string(let message)? = row["message"] else { continue }
            let object = "tree \(tree)\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\n\(message)"
            let hex = try await git("--git-dir", store.path, "hash-object", "-t", "commit", "-w", "--stdin", input: object).stdout.trimmed
            let id = try #require(CommitID(hex))
            let commit = try await store.commit(id)
            if row["malformed"] == .bool(true) {
                #expect {
                    try store.value(at: id)
                } throws: { error in
                    (error as? StoreError)?.code == .malformedCommit
                }
                continue
            }
            let trailers = JSONValue.array(commit.trailers.map { .array([.string($0.key), .string($0.value)]) })
            #expect(trailers == row["trailers"], "\(message.debugDescription)")
            #expect(.string(commit.message) == row["text"], "\(message.debugDescription)")
            let parsed = try await git("interpret-trailers", "--parse", input: message).stdout
            let logged = try await git("--git-dir", store.path, "log", "-1", "--format=%(trailers:only,unfold)", hex).stdout
            let lines = commit.trailers.map { "\($0.key): \($0.value)\n" }.joined()
            #expect(parsed == lines, "git interpret-trailers: \(message.debugDescription)")
            #expect(logged.trimmingCharacters(in: .newlines) == lines.trimmingCharacters(in: .newlines), "git log: \(message.debugDescription)")
            if commit.modelVersion != nil { _ = try await store.value(at: id) }
        }
    }
}
