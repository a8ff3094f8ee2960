import Foundation

/// A collection whose `Encodable` conformance lists its contents in hash order, which has no
/// meaning and changes from one process to the next (Swift seeds its hashes per process).
/// The canonical encoding puts such a list in canonical order (Schema/FORMAT.md, section 4),
/// so the same value always gives the same bytes.
protocol HashOrderedCollection {
    /// The list the collection encoded, in canonical order.
    static func canonicalOrder(of elements: [JSONValue]) -> [JSONValue]
}

/// A `Set` encodes as an array of its elements: sorted by the bytes of each one's canonical JSON.
extension Set: HashOrderedCollection {
    static func canonicalOrder(of elements: [JSONValue]) -> [JSONValue] {
        sortedByCanonicalBytes(elements, entryLength: 1)
    }
}

/// A `Dictionary` whose keys are neither strings nor integers encodes as an array of keys and
/// values in turn: its pairs are sorted by the bytes of the key's canonical JSON, then the
/// value's. (With string or integer keys it encodes as an object, sorted anyway.)
extension Dictionary: HashOrderedCollection {
    static func canonicalOrder(of elements: [JSONValue]) -> [JSONValue] {
        elements.count.isMultiple(of: 2) ? sortedByCanonicalBytes(elements, entryLength: 2) : elements
    }
}

/// `elements` taken as entries of `entryLength` elements each, the entries sorted by the bytes
/// of their elements' canonical JSON (each written as a document of its own), first one first.
private func sortedByCanonicalBytes(_ elements: [JSONValue], entryLength: Int) -> [JSONValue] {
    let entries = stride(from: 0, to: elements.count, by: entryLength).map { start in
        elements[start..<min(start + entryLength, elements.count)].map { (value: $0, bytes: CanonicalJSON.serialize($0)) }
    }
    let sorted = entries.sorted { one, other in
        for (mine, theirs) in zip(one, other) {
            let order = compare(mine.bytes, theirs.bytes)
            if order != 0 { return order < 0 }
        }
        return one.count < other.count
    }
    return sorted.flatMap { $0.map(\.value) }
}

/// Compares two byte strings bytewise, unsigned, a prefix first: negative, zero or positive.
private func compare(_ one: [UInt8], _ other: [UInt8]) -> Int {
    let common = min(one.count, other.count)
    let order = one.withUnsafeBufferPointer { one in
        other.withUnsafeBufferPointer { other in
            guard let one = one.baseAddress, let other = other.baseAddress else { return Int32(0) }
            return memcmp(one, other, common)
        }
    }
    return order != 0 ? Int(order) : one.count - other.count
}
