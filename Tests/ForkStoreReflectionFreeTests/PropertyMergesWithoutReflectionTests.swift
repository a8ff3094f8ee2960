import ForkStore
import ForkStoreMerge
import Testing

/// This target is built with `-disable-reflection-metadata`, as some release builds are: key
/// paths then print as offsets, so property names must come from the encoding.
@Suite("Per-property merges without reflection metadata")
struct PropertyMergesWithoutReflectionTests {
    struct Card: Codable, Sendable, Equatable {
        var title: String
        var body: String
        var likes: Int

        static let merges = PropertyMerges<Card>().text(\.body).counter(\.likes)
    }

    @Test func thisBuildReallyHasNoReflectionMetadata() {
        #expect(!String(describing: \Card.body).contains("body"), "\(String(describing: \Card.body))")
    }

    @Test func namedPropertiesMergeByTheirStrategyAndNothingElse() throws {
        let base = Card(title: "Title", body: "one two three", likes: 1)
        let (merged, conflicts, _) = try MergeContext.collecting {
            try Card.merges.merge(
                ancestor: base, dominant: Card(title: "Ours", body: "one TWO three", likes: 3),
                subordinate: Card(title: "Theirs", body: "one two THREE", likes: 6))
        }
        #expect(merged == Card(title: "Ours", body: "one TWO THREE", likes: 8))
        #expect(conflicts.map(\.path) == ["/title"])
    }
}
