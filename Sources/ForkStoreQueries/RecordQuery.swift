import ForkStore

/// What to find in a record collection: filters, an order and a page, built by chaining.
///
/// ```swift
/// let soonest = RecordQuery<Film>()
///     .filter(\.genres, contains: "drama")
///     .filter(\.year, atLeast: 1970)
///     .sorted(by: \.year, descending: true)
///     .limit(20)
/// let films = try store.query(soonest)
/// ```
///
/// A query whose filters and sort keys are all ``IndexedRecord/indexedFields`` is answered
/// from the index; any other query is answered by a scan that decodes every record of the
/// fork, with the same results (only slower). Equality and ranges follow the order of
/// ``IndexValue``: a range never matches a missing (nil) value, equality to nil does. Records
/// that sort alike come in the order of their ids (by UTF-8 bytes).
public struct RecordQuery<Record: IndexedRecord>: Sendable {
    enum Condition: Sendable {
        case equals(IndexValue)
        case below(IndexValue, inclusive: Bool)
        case above(IndexValue, inclusive: Bool)
        case contains(IndexValue)
    }

    struct Filter: Sendable {
        let keyPath: AnyKeyPath & Sendable
        let condition: Condition
        let values: @Sendable (Record) -> [IndexValue]
    }

    struct Sort: Sendable {
        let keyPath: AnyKeyPath & Sendable
        let descending: Bool
        let value: @Sendable (Record) -> IndexValue
    }

    private(set) var filters: [Filter] = []
    private(set) var sorts: [Sort] = []
    /// At most this many records (nil: all).
    public private(set) var limit: Int?
    /// How many matching records to skip first.
    public private(set) var offset = 0

    /// A query matching every record, in id order.
    public init() {}

    /// Records whose field equals `value` (nil matches a missing value).
    public func filter<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, equals value: Value) -> Self {
        adding(keyPath, .equals(value.indexValue))
    }

    /// Records whose field is below `value`.
    public func filter<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, lessThan value: Value) -> Self {
        adding(keyPath, .below(value.indexValue, inclusive: false))
    }

    /// Records whose field is `value` or below.
    public func filter<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, atMost value: Value) -> Self {
        adding(keyPath, .below(value.indexValue, inclusive: true))
    }

    /// Records whose field is above `value`.
    public func filter<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, greaterThan value: Value) -> Self {
        adding(keyPath, .above(value.indexValue, inclusive: false))
    }

    /// Records whose field is `value` or above.
    public func filter<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, atLeast value: Value) -> Self {
        adding(keyPath, .above(value.indexValue, inclusive: true))
    }

    /// Records whose collection holds `element` (answered from the index when the field is
    /// declared with ``IndexedField/each(_:_:)``).
    public func filter<Values: Sequence>(_ keyPath: KeyPath<Record, Values> & Sendable, contains element: Values.Element) -> Self
    where Values: SendableMetatype, Values.Element: IndexableValue {
        var query = self
        query.filters.append(Filter(keyPath: keyPath, condition: .contains(element.indexValue)) { record in
            record[keyPath: keyPath].map { $0.indexValue }
        })
        return query
    }

    /// Sorts by a field; call again to break ties by further fields. Ties left over are broken
    /// by id.
    public func sorted<Value: IndexableValue>(by keyPath: KeyPath<Record, Value> & Sendable, descending: Bool = false) -> Self {
        var query = self
        query.sorts.append(Sort(keyPath: keyPath, descending: descending) { $0[keyPath: keyPath].indexValue })
        return query
    }

    /// At most `count` records, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> Self {
        var query = self
        query.limit = max(0, count)
        query.offset = max(0, offset)
        return query
    }

    private func adding<Value: IndexableValue>(_ keyPath: KeyPath<Record, Value> & Sendable, _ condition: Condition) -> Self {
        var query = self
        query.filters.append(Filter(keyPath: keyPath, condition: condition) { [$0[keyPath: keyPath].indexValue] })
        return query
    }
}

// MARK: Answering by a scan

extension RecordQuery {
    /// Whether a decoded record passes every filter, by the rules the index follows.
    func matches(_ record: Record) -> Bool {
        filters.allSatisfy { filter in
            let values = filter.values(record)
            switch filter.condition {
            case .equals(let wanted): return values.first.map { $0 == wanted } ?? false
            case .contains(let wanted): return values.contains(wanted)
            case .below(let bound, let inclusive):
                guard let value = values.first, value != .null, bound != .null else { return false }
                let order = IndexValue.compare(value, bound)
                return order < 0 || (inclusive && order == 0)
            case .above(let bound, let inclusive):
                guard let value = values.first, value != .null, bound != .null else { return false }
                let order = IndexValue.compare(value, bound)
                return order > 0 || (inclusive && order == 0)
            }
        }
    }

    /// Whether `lhs` comes before `rhs` in this query's order (ids break ties).
    func precedes(_ lhs: Record, _ rhs: Record) -> Bool {
        for sort in sorts {
            let order = IndexValue.compare(sort.value(lhs), sort.value(rhs))
            if order != 0 { return sort.descending ? order > 0 : order < 0 }
        }
        return lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8)
    }

    /// The page this query asks for, out of all matching records in order.
    func page<Records: RandomAccessCollection>(of sorted: Records) -> [Record] where Records.Element == Record {
        let start = min(offset, sorted.count)
        let end = limit.map { min(sorted.count, start + $0) } ?? sorted.count
        return Array(sorted.dropFirst(start).prefix(end - start))
    }
}
