import Foundation

/// A collection whose `Encodable` conformance lists its contents in hash order, which has no
/// meaning and changes from one process to the next (Swift seeds its hashes per process).
/// The canonical encoding puts such a list in canonical order (Schema/FORMAT.md, section 4),
/// so the same value always gives the same bytes.
protocol HashOrderedCollection {
    /// The list the collection encoded, in canonical order.
    static func canonicalOrder(of elements: [JSONValue]) -> [JSONValue]
}

/// A `Set` encodes as an array of its elements, sorted by the bytes of each element's canonical
/// JSON (written as a document of its own).
extension Set: HashOrderedCollection {
    static func canonicalOrder(of elements: [JSONValue]) -> [JSONValue] {
        elements.map { ($0, CanonicalJSON.serialize($0)) }
            .sorted { precedes($0.1, $1.1) }
            .map(\.0)
    }
}

/// Whether `one` sorts before `other`, bytewise and unsigned (a prefix first).
private func precedes(_ one: [UInt8], _ other: [UInt8]) -> Bool {
    let common = min(one.count, other.count)
    let order = one.withUnsafeBufferPointer { one in
        other.withUnsafeBufferPointer { other in
            guard let one = one.baseAddress, let other = other.baseAddress else { return Int32(0) }
            return memcmp(one, other, common)
        }
    }
    return order != 0 ? order < 0 : one.count < other.count
}
