import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes list --json")
struct ForkNotesListJSONTests {
    /// The shape `list --json` prints, to encode again with Foundation.
    struct Listed: Codable {
        var id: String
        var title: String
        var body: String
        var tags: [String]
        var done: Bool
        var completedAt: Date?
        var due: Date?
        var updatedAt: Date?
        var attachments: [Attachment]?

        struct Attachment: Codable {
            var name: String
            var id: String
            var size: Int
            var mediaType: String
            var local: Bool
        }
    }

    /// `list --json` writes its own bytes (not through JSONEncoder, for speed): they must be
    /// the ones JSONEncoder gives, pretty-printed with sorted keys and ISO 8601 dates, for
    /// strings that need escaping, empty and full arrays, optional dates and attachments.
    @Test func printsWhatJSONEncoderWould() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        let awkward = #"q\"uote \\ back/slash \b\f\n\r\t \u0001\u001f\u007f é \u2028 😀 \u0000"#
        let lines = [
            #"{"id":"plain","title":"Plain","body":"","tags":[],"done":false}"#,
            #"{"id":"awkward","title":"\#(awkward)","body":"\#(awkward)","tags":["\#(awkward)","a/b"],"done":true}"#,
            #"{"id":"dated","title":"Dated","body":"x","tags":["b","a"],"done":false,"due":"2030-01-02T03:04:05Z"}"#,
        ]
        let file = cli.folder.child("notes.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try await cli.ok("import", "--store", cli.store, file)
        let attached = cli.folder.child("a \"file\".txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: attached))
        try await cli.ok("attach", "--store", cli.store, "dated", attached)

        let printed = try await cli.ok("list", "--store", cli.store, "--json")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let notes = try decoder.decode([Listed].self, from: Data(printed.utf8))
        #expect(notes.count == 3)
        #expect(notes.contains { $0.attachments?.count == 1 } && notes.contains { $0.completedAt != nil && $0.title.contains("😀") })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let expected = String(decoding: try encoder.encode(notes), as: UTF8.self) + "\n"
        #expect(printed == expected)

        // No notes: an empty array, as JSONEncoder writes one.
        let empty = ForkNotes()
        try await empty.ok("init", "--store", empty.store)
        #expect(try await empty.ok("list", "--store", empty.store, "--json") == String(decoding: try encoder.encode([Listed]()), as: UTF8.self) + "\n")
    }
}
