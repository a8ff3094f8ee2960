import ForkStore
import ForkStoreMerge
import ForkStoreQueries
import Foundation

/// One note: the record the sample app keeps.
///
/// Model version 4 (the default) stores `completedAt` (when the note was done), an optional
/// `due` date, `updatedAt` (when the note was last changed) and `attachments` (files kept as
/// assets, by name); version 3 had no attachments, version 2 no `updatedAt`, and version 1
/// stored a `done` flag. Set `FORKNOTES_MODEL_VERSION=1` (or `2`) to run as an
/// older build: it writes notes of that version and halts on newer data. A newer build reads
/// and merges older notes through the migration plan.
///
/// Merging: `title`, `completedAt` and `due` by last-writer-wins (per property), `body` as text
/// (both sides' edits kept when they touch different words), `tags` as an add-wins set, and
/// `updatedAt` as the later of the two changes.
struct Note: IndexedRecord, PropertyMergeable, Hashable {
    /// Read from the environment once per process (building the environment is not free).
    static let modelVersion = switch ProcessInfo.processInfo.environment["FORKNOTES_MODEL_VERSION"] {
    case "1": 1
    case "2": 2
    case "3": 3
    default: 4
    }

    static let migrationPlan = MigrationPlan([
        // `done` became `completedAt`. When a version-1 note was done is not stored, so it
        // becomes 0 (2001-01-01, "done, time unknown"), as the version-1 decoder below reads it:
        // a migration depends on the stored data only, so it gives the same note every time.
        .custom(from: 1, to: 2) { json, _ in
            if json["done"] == .bool(true) {
                json["completedAt"] = .number("0")
            }
            json["done"] = nil
        },
        // `updatedAt` is new and optional: notes written before it have none ("unknown").
        .lightweight(from: 2, to: 3),
        // `attachments` is new: notes written before it have none.
        .custom(from: 3, to: 4) { json, _ in
            if json["attachments"] == nil { json["attachments"] = .object([]) }
        },
    ])

    /// What `list` and `count` filter and sort by, kept in the store's query index.
    static let indexedFields: [IndexedField<Note>] = [
        .field("title", \.title),
        .field("due", \.due),
        .each("tag", \.tags),
        .field("updated", \.updatedAt),
    ]

    static let mergeProperties = PropertyMerges<Note>()
        .text(\.body)
        .addWinsSet(\.tags)
        .property(\.updatedAt, using: LatestChange())
        .property(\.attachments, using: DictionaryMerge(values: LastWriterWins<Asset>()))

    var id: String
    var title: String
    var body: String
    var tags: Set<String>
    /// When the note was done; nil while it is open.
    var completedAt: Date?
    /// When it is due (model version 2).
    var due: Date?
    /// When it was last changed by a build of version 3 or later; nil for notes written before.
    var updatedAt: Date?
    /// Files attached to the note, by name (model version 4): the bytes are assets, kept
    /// beside the records and fetched when opened.
    var attachments: [String: Asset] = [:]

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
        self.updatedAt = Date()
    }

    /// Marks the note as changed now.
    mutating func touch() {
        updatedAt = Date()
    }

    enum CodingKeys: String, CodingKey {
        case id, title, body, tags, done, completedAt, due, updatedAt, attachments
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        tags = try container.decode(Set<String>.self, forKey: .tags)
        due = try container.decodeIfPresent(Date.self, forKey: .due)
        updatedAt = try container.decodeIfPresent(Date.self, forKey: .updatedAt)
        attachments = try container.decodeIfPresent([String: Asset].self, forKey: .attachments) ?? [:]
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
        if Self.modelVersion >= 3 {
            try container.encodeIfPresent(updatedAt, forKey: .updatedAt)
        }
        if Self.modelVersion >= 4, !attachments.isEmpty {
            try container.encode(attachments, forKey: .attachments)
        }
    }
}

/// The stored shape of a version-3 note, kept for its schema snapshot.
struct NoteVersion3: Resource {
    static let modelVersion = 3
    var id: String
    var title: String
    var body: String
    var tags: Set<String>
    var completedAt: Date?
    var due: Date?
    var updatedAt: Date?
}

/// The stored shape of a version-2 note, kept for its schema snapshot.
struct NoteVersion2: Resource {
    static let modelVersion = 2
    var id: String
    var title: String
    var body: String
    var tags: Set<String>
    var completedAt: Date?
    var due: Date?
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
