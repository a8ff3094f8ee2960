import ForkStore

/// A record type whose collection keeps a derived index of some of its fields, so that
/// `RecordStore.query(_:in:)` filters, sorts and counts without decoding every
/// record.
///
/// ```swift
/// struct Film: IndexedRecord {
///     static let modelVersion = 1
///     static let indexedFields: [IndexedField<Film>] = [
///         .field("year", \.year),
///         .field("title", \.title),
///         .each("genre", \.genres),
///     ]
///     var id: String
///     var title: String
///     var year: Int
///     var genres: [String]
/// }
/// ```
///
/// Fields are read from records as this build decodes them: migrated to the current model
/// version. Changing the list (or the model version) makes the next query rebuild the index.
public protocol IndexedRecord: Resource, Identifiable where ID == String {
    /// The fields kept in the index, each named (the name is part of the index's identity, so
    /// renaming a field rebuilds the index).
    static var indexedFields: [IndexedField<Self>] { get }
}

/// One indexed field of a record type: a single value (filtered by equality or range, sorted
/// by) or, made with ``each(_:_:)``, every element of a collection (filtered by containment).
public struct IndexedField<Record>: Sendable {
    /// The name, used in the index's schema and in error messages.
    public let name: String
    /// Whether the field holds every element of a collection (see ``each(_:_:)``).
    public let isCollection: Bool
    let keyPath: AnyKeyPath & Sendable
    let values: @Sendable (Record) -> [IndexValue]

    /// A field holding one value per record.
    public static func field<Value: IndexableValue>(_ name: String, _ keyPath: KeyPath<Record, Value> & Sendable) -> Self {
        IndexedField(name: name, isCollection: false, keyPath: keyPath) { record in [record[keyPath: keyPath].indexValue] }
    }

    /// A field holding every element of a collection per record (tags, say), found with
    /// ``RecordQuery/filter(_:contains:)``.
    public static func each<Values: Sequence>(_ name: String, _ keyPath: KeyPath<Record, Values> & Sendable) -> Self
    where Values: SendableMetatype, Values.Element: IndexableValue {
        IndexedField(name: name, isCollection: true, keyPath: keyPath) { record in
            record[keyPath: keyPath].map { $0.indexValue }
        }
    }
}
