import ForkStore
import ForkStoreMerge
import ForkStoreQueries
import Foundation

/// One note: the record the sample app keeps.
///
/// Model version 2 (the default) stores `completedAt` (when the note was done) and an optional
/// `due` date; version 1 stored a `done` flag. Set `FORKNOTES_MODEL_VERSION=1` to run as a
/// version-1 build: it writes version-1 notes and halts on version-2 data. A version-2 build
/// reads and merges version-1 notes through the migration plan.
///
/// Merging: `title`, `completedAt` and `due` by last-writer-wins (per property), `body` as text
/// (both sides' edits kept when they touch different words), `tags` as an add-wins set.
struct Note: IndexedRecord, PropertyMergeable, Hashable {
    /// Read from the environment once per process (building the environment is not free).
    static let modelVersion = ProcessInfo.processInfo.environment["FORKNOTES_MODEL_VERSION"] == "1" ? 1 : 2

    static let migrationPlan = MigrationPlan([
        // `done` became `completedAt`. When a version-1 note was done is not stored, so it
        // becomes 0 (2001-01-01, "done, time unknown"), as the version-1 decoder below reads it:
        // a migration depends on the stored data only, so it gives the same note every time.
        .custom(from: 1, to: 2) { json, _ in
            if json["done"] == .bool(true) {
                json["completedAt"] = .number("0")
            }
            json["done"] = nil
        }
    ])

    /// What `list` and `count` filter and sort by, kept in the store's query index.
    static let indexedFields: [IndexedField<Note>] = [
        .field("title", \.title),
        .field("due", \.due),
        .each("tag", \.tags),
    ]

    static let mergeProperties = PropertyMerges<Note>()
        .text(\.body)
        .addWinsSet(\.tags)

    var id: String
    var title: String
    var body: String
    var tags: Set<String>
    /// When the note was done; nil while it is open.
    var completedAt: Date?
    /// When it is due (model version 2).
    var due: Date?

    /// Whether the note is done: the version-1 view of `completedAt`.
    var done: Bool {
        get { completedAt != nil }
        set { completedAt = newValue ? (completedAt ?? Date()) : nil }
    }

    init(id: String, title: String, body: String = "", tags: Set<String> = [], done: Bool = false, due: Date? = nil) {
        self.id = id
        self.title = title
        self.body = body
        self.tags = tags
        self.completedAt = done ? Date() : nil
        self.due = due
    }

    enum CodingKeys: String, CodingKey {
        case id, title, body, tags, done, completedAt, due
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        tags = try container.decode(Set<String>.self, forKey: .tags)
        due = try container.decodeIfPresent(Date.self, forKey: .due)
        if let completedAt = try container.decodeIfPresent(Date.self, forKey: .completedAt) {
            self.completedAt = completedAt
        } else {
            // Version-1 data read by a version-1 build: only the flag exists.
            let done = try container.decodeIfPresent(Bool.self, forKey: .done) ?? false
            completedAt = done ? Date(timeIntervalSinceReferenceDate: 0) : nil
        }
    }

    // Writes the running model version's shape; tags sorted, so the same note always gives
    // the same bytes.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(tags.sorted(), forKey: .tags)
        if Self.modelVersion == 1 {
            try container.encode(done, forKey: .done)
        } else {
            try container.encodeIfPresent(completedAt, forKey: .completedAt)
            try container.encodeIfPresent(due, forKey: .due)
        }
    }
}

/// The stored shape of a version-1 note, kept for its schema snapshot.
struct NoteVersion1: Resource {
    static let modelVersion = 1
    var id: String
    var title: String
    var body: String
    var tags: Set<String>
    var done: Bool
}
