import ForkStore
import ForkStoreMerge
import Testing

/// Named properties are found under the keys the type really encodes them with.
@Suite("Stored keys of named properties")
struct PropertyKeyTests {
    struct Note: Codable, Sendable, Equatable {
        var title: String
        var body: String
        var tags: Set<String>

        enum CodingKeys: String, CodingKey {
            case title
            case body = "text"
            case tags = "labels"
        }

        static let merges = PropertyMerges<Note>().text(\.body).addWinsSet(\.tags)
    }

    @Test func renamedPropertiesMergeOnceUnderTheirStoredKeys() throws {
        let base = Note(title: "T", body: "one two three", tags: ["a"])
        let mine = Note(title: "T", body: "one TWO three", tags: ["a", "b"])
        let theirs = Note(title: "T", body: "one two THREE", tags: [])
        let (merged, conflicts, _) = try MergeContext.collecting {
            try Note.merges.merge(ancestor: base, dominant: mine, subordinate: theirs)
        }
        #expect(merged == Note(title: "T", body: "one TWO THREE", tags: ["b"]))
        #expect(conflicts.isEmpty, "a named property must not also merge by last-writer-wins: \(conflicts)")
    }

    @Test func aConflictInsideANamedPropertyCarriesItsStoredKey() throws {
        let base = Note(title: "T", body: "a red car", tags: [])
        let (_, conflicts, _) = try MergeContext.collecting {
            try Note.merges.merge(
                ancestor: base, dominant: Note(title: "T", body: "a blue car", tags: []),
                subordinate: Note(title: "T", body: "a green car", tags: []))
        }
        #expect(conflicts.map(\.path) == ["/text"])
    }

    @Test func aKeyThePropertyIsNotStoredUnderIsAClearError() throws {
        let wrong = PropertyMerges<Note>().text(\.body, key: "body")
        let base = Note(title: "T", body: "x", tags: [])
        #expect {
            try wrong.merge(
                ancestor: base, dominant: Note(title: "T", body: "y", tags: []), subordinate: Note(title: "T", body: "z", tags: []))
        } throws: { error in
            guard let error = error as? StoreError, error.code == .mergeFailed, let reason = error.reason else { return false }
            return reason.contains("'body'") && reason.contains("'text'")
        }
    }
}
