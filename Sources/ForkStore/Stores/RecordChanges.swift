/// The changes one ``RecordStore/transaction(on:message:_:)`` commits together.
public struct RecordChanges<Record: Identifiable & Sendable>: Sendable where Record.ID == String {
    /// One pending change. Ids are compared by their UTF-8 bytes: "é" and "e\u{301}" are two
    /// records, although Swift considers the strings equal.
    struct Change: Sendable {
        var id: String
        /// The new record, or nil to delete it.
        var record: Record?
        /// A delete of a record this transaction saved: no error if the store lacks it.
        var deletesOwnSave = false
    }

    private(set) var changes: [Change] = []
    private var positions: [[UInt8]: Int] = [:]

    /// Saves a record (adds it, or replaces the record with its id). The last change to an id wins.
    public mutating func save(_ record: Record) {
        set(Change(id: record.id, record: record))
    }

    /// Deletes the record with this id; committing fails with
    /// ``StoreError/recordNotFound(id:fork:)`` if neither the store nor this transaction has it.
    public mutating func delete(_ id: String) {
        let savedHere = positions[Array(id.utf8)].map { changes[$0].record != nil || changes[$0].deletesOwnSave } ?? false
        set(Change(id: id, record: nil, deletesOwnSave: savedHere))
    }

    /// How many records this transaction changes.
    public var count: Int { changes.count }

    private mutating func set(_ change: Change) {
        let key = Array(change.id.utf8)
        if let index = positions[key] {
            changes[index] = change
        } else {
            positions[key] = changes.count
            changes.append(change)
        }
    }
}
