import ForkStore
import ForkStoreMerge

/// One note: the record the sample app keeps.
///
/// Merging: `title` and `done` by last-writer-wins (per property), `body` as text (both
/// sides' edits kept when they touch different words), `tags` as an add-wins set.
struct Note: Resource, PropertyMergeable, Hashable, Identifiable {
    static let modelVersion = 1

    var id: String
    var title: String
    var body: String
    var tags: Set<String>
    var done: Bool

    static let mergeProperties = PropertyMerges<Note>()
        .text(\.body)
        .addWinsSet(\.tags)

    enum CodingKeys: String, CodingKey {
        case id, title, body, tags, done
    }

    init(id: String, title: String, body: String = "", tags: Set<String> = [], done: Bool = false) {
        self.id = id
        self.title = title
        self.body = body
        self.tags = tags
        self.done = done
    }

    // Tags are a set: write them sorted, so the same note always gives the same bytes.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(tags.sorted(), forKey: .tags)
        try container.encode(done, forKey: .done)
    }
}
