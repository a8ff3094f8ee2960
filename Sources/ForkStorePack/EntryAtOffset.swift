import Foundation

/// An entry of a pack read at its offset, with no index to bound it: its header, its delta's
/// base, and where its data starts. Read this way by ``DeltaChains`` and ``MappedPacks``, which
/// follow chains of deltas by offset.
struct EntryAtOffset {
    enum Base {
        /// An earlier entry of the same pack, at this offset.
        case offset(Int)
        /// An object named by id, in this pack or elsewhere.
        case id(ObjectID)
    }

    let header: EntryHeader
    /// Nil for a whole object.
    let base: Base?
    /// Where the entry's compressed data starts, before the pack's 20-byte trailer.
    let data: Int

    /// The entry at `offset` of `pack` (a whole pack file's bytes).
    init(at offset: Int, in pack: UnsafeRawBufferPointer) throws(PackError) {
        guard offset >= 12, offset < pack.count - 20 else { throw .damaged(nil, "an entry lies outside its pack") }
        let entry = UnsafeRawBufferPointer(rebasing: pack[offset..<pack.count - 20])
        let length: Int
        (header, length) = try EntryHeader.decode(entry)
        switch header.type {
        case .offsetDelta:
            let (distance, distanceLength) = try OffsetDistance.decode(UnsafeRawBufferPointer(rebasing: entry[length...]))
            guard distance > 0, distance <= offset - 12 else { throw .damaged(nil, "a delta names no entry before it as its base") }
            (base, data) = (.offset(offset - distance), offset + length + distanceLength)
        case .referenceDelta:
            guard let id = ObjectID(copying: UnsafeRawBufferPointer(rebasing: entry[length...].prefix(20))) else {
                throw .damaged(nil, "a delta is cut short")
            }
            (base, data) = (.id(id), offset + length + 20)
        default:
            (base, data) = (nil, offset + length)
        }
        guard data <= pack.count - 20 else { throw .damaged(nil, "an entry is cut short") }
    }
}
