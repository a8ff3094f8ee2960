/// The header of a pack entry, and the base distance of an offset delta after it.
///
/// An entry's header holds its type in bits 4–6 of its first byte and the size of its inflated
/// data in that byte's low four bits and then 7-bit groups, least significant first, each byte
/// but the last with bit 7 set. An offset delta's header is followed by the distance back to its
/// base's entry: 7 bits a byte, most significant first, each continued group counted from one.
package struct EntryHeader: Sendable, Equatable {
    /// The type field of an entry: an object whole, or a delta against a base.
    package enum EntryType: UInt8, Sendable {
        case commit = 1, tree = 2, blob = 3, tag = 4
        /// A delta whose base is an earlier entry of the same pack, by distance.
        case offsetDelta = 6
        /// A delta whose base is named by its id.
        case referenceDelta = 7

        package init(_ kind: ObjectKind) { self = EntryType(rawValue: kind.rawValue) ?? .blob }

        /// The kind of a whole object; nil for a delta.
        package var kind: ObjectKind? { ObjectKind(rawValue: rawValue) }
    }

    package var type: EntryType
    /// The size of the entry's data once inflated: the object, or the delta.
    package var size: Int

    package init(type: EntryType, size: Int) { (self.type, self.size) = (type, size) }

    /// The most bytes a header can take: 4 + 9 × 7 = 67 bits of size, more than an Int holds.
    static let maximumLength = 10

    /// The header's bytes.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = []
        var byte = type.rawValue << 4 | UInt8(size & 0x0F)
        var rest = size >> 4
        while rest != 0 {
            bytes.append(byte | 0x80)
            byte = UInt8(rest & 0x7F)
            rest >>= 7
        }
        bytes.append(byte)
        return bytes
    }

    /// Reads a header at the start of `bytes`; returns it and how many bytes it took. Refuses
    /// an unknown type, a header that runs past `bytes` and a size past `Int.max`.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(PackError) -> (EntryHeader, length: Int) {
        guard let first = bytes.first else { throw .damaged(nil, "an entry header is cut short") }
        guard let type = EntryType(rawValue: (first >> 4) & 7) else {
            throw .damaged(nil, "an entry has the unknown type \((first >> 4) & 7)")
        }
        var size = Int(first & 0x0F), shift = 4, length = 1, byte = first
        while byte & 0x80 != 0 {
            guard length < bytes.count else { throw .damaged(nil, "an entry header is cut short") }
            byte = bytes[length]
            length += 1
            let group = Int(byte & 0x7F)
            guard shift < Int.bitWidth - 1, group <= Int.max >> shift else { throw .damaged(nil, "an entry's size is too large") }
            size |= group << shift
            shift += 7
        }
        return (EntryHeader(type: type, size: size), length)
    }
}

/// The distance from an offset delta's entry back to its base's entry.
package enum OffsetDistance {
    /// The distance as git writes it.
    package static func encode(_ distance: Int) -> [UInt8] {
        var bytes = [UInt8(distance & 0x7F)]
        var rest = distance >> 7
        while rest != 0 {
            rest -= 1
            bytes.append(0x80 | UInt8(rest & 0x7F))
            rest >>= 7
        }
        return bytes.reversed()
    }

    /// Reads a distance at the start of `bytes`; returns it and how many bytes it took.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(PackError) -> (distance: Int, length: Int) {
        guard let first = bytes.first else { throw .damaged(nil, "a delta's base distance is cut short") }
        var byte = first, distance = Int(first & 0x7F), length = 1
        while byte & 0x80 != 0 {
            guard length < bytes.count else { throw .damaged(nil, "a delta's base distance is cut short") }
            guard distance < 1 << 55 else { throw .damaged(nil, "a delta's base distance is too large") }
            byte = bytes[length]
            length += 1
            distance = (distance + 1) << 7 | Int(byte & 0x7F)
        }
        return (distance, length)
    }
}
