internal import Crypto

extension PackIndex {
    /// A version-2 pack index of `entries` for the pack whose checksum is `packChecksum`: the
    /// fan-out table, the ids in order, their CRC-32s, their offsets (those past 2 GB in a
    /// table of 8-byte offsets), the pack's checksum and the index's own. Refuses an object
    /// listed twice: readers would find only one of them. Sorts `entries` by id in place (a
    /// sorted copy of a roll-up's entries was a quarter of its peak memory).
    package static func encode(_ entries: inout [Entry], packChecksum: [UInt8]) throws(PackError) -> [UInt8] {
        entries.sort { $0.id < $1.id }
        let sorted = entries
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier.id == later.id {
            throw PackError(.invalidRequest, "object \(later.id.hex) is in the pack twice")
        }
        var index = magic
        index.reserveCapacity(idsStart + sorted.count * 28 + 40)
        var counts = [Int](repeating: 0, count: 256)
        for entry in sorted { counts[Int(entry.id.firstByte)] += 1 }
        var total = 0
        for count in counts {
            total += count
            index += bigEndian(UInt32(total))
        }
        for entry in sorted { withUnsafeBytes(of: entry.id.bytes) { index += $0 } }
        for entry in sorted { index += bigEndian(entry.crc) }
        var large: [UInt8] = []
        for entry in sorted {
            if entry.offset < 0x8000_0000 {
                index += bigEndian(UInt32(entry.offset))
            } else {
                index += bigEndian(0x8000_0000 | UInt32(large.count / 8))
                large += bigEndian(UInt32(truncatingIfNeeded: entry.offset >> 32)) + bigEndian(UInt32(truncatingIfNeeded: entry.offset))
            }
        }
        index += large
        index += packChecksum
        index += Array(Insecure.SHA1.hash(data: index))
        return index
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
