import ForkStore
import ForkStoreQueries
import Foundation

/// A record with indexed fields, shared by the query tests and the stress writer (the index
/// belongs to one record type, so both must use this one).
public struct IndexedItem: IndexedRecord, Equatable {
    public static let modelVersion = 1
    public static let indexedFields: [IndexedField<IndexedItem>] = [
        .field("title", \.title),
        .field("priority", \.priority),
        .field("due", \.due),
        .each("tag", \.tags),
    ]

    public var id: String
    public var title: String
    public var priority: Int
    public var due: Date?
    public var tags: [String]
    /// Not indexed: queries on it are answered by a scan.
    public var note: String

    public init(id: String, title: String, priority: Int = 0, due: Date? = nil, tags: [String] = [], note: String = "") {
        self.id = id
        self.title = title
        self.priority = priority
        self.due = due
        self.tags = tags
        self.note = note
    }
}
