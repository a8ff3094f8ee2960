import Foundation

/// Which objects of some packs a pruning rewrite keeps (``RollUp/rewrite(keeping:in:fsync:readWhole:externalBase:)``),
/// and which of those it writes whole: a kept delta whose base goes (an old version of a
/// record, at the end of a long delta chain) is written as the object it resolves to, so the
/// rewrite keeps no object nothing reaches.
///
/// It remembers two flags per object of each pack, so it costs two bytes an object however
/// many are kept.
package struct KeptObjects {
    package let packs: [PackFile]
    let indexes: [PackIndex]
    /// By pack, then by the object's number in the pack's index.
    private(set) var flags: [[Bool]]
    /// The kept deltas whose base is not kept, likewise.
    private(set) var whole: [[Bool]]

    package init(packs: [PackFile]) throws(PackError) {
        self.packs = packs
        var indexes: [PackIndex] = []
        for pack in packs { indexes.append(try PackIndex(path: pack.base + ".idx")) }
        self.indexes = indexes
        flags = indexes.map { [Bool](repeating: false, count: $0.count) }
        whole = flags
    }

    /// Keeps `id` in every pack that holds it. Returns whether any of these packs holds it.
    @discardableResult
    package mutating func keep(_ id: ObjectID) -> Bool {
        var found = false
        for (pack, index) in indexes.enumerated() {
            if let number = index.number(of: id) {
                flags[pack][number] = true
                found = true
            }
        }
        return found
    }

    /// Whether one of the packs holds `id`, kept or not.
    package func holds(_ id: ObjectID) -> Bool {
        indexes.contains { $0.number(of: id) != nil }
    }

    /// Whether `id` is kept in some pack.
    package func isKept(_ id: ObjectID) -> Bool {
        indexes.enumerated().contains { pack, index in index.number(of: id).map { flags[pack][$0] } ?? false }
    }

    /// How many entries the rewrite copies: an object two packs hold is copied once.
    package var count: Int {
        var ids = Set<ObjectID>()
        for (pack, index) in indexes.enumerated() {
            for number in 0..<index.count where flags[pack][number] { ids.insert(index.id(at: number)) }
        }
        return ids.count
    }

    /// Marks the kept deltas whose base is not kept to be written whole: an offset delta's
    /// base is in its own pack; a reference delta's base counts as kept when it is kept or
    /// none of these packs holds it (it stays where it is, outside them). Reads only the
    /// entries' headers.
    package mutating func markDeltasWithoutBases() throws(PackError) {
        for (pack, index) in indexes.enumerated() {
            let path = packs[pack].base + ".pack"
            let data = try MappedFile.map(path)
            let entries = try index.entriesInPackOrder()
            try data.withBytes { (bytes) throws(PackError) in
                for entry in entries {
                    guard let number = index.number(of: entry.id), flags[pack][number] else { continue }
                    guard entry.offset >= 12, entry.offset < bytes.count - 20 else {
                        throw .damaged(path, "its index places an entry outside it")
                    }
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[entry.offset..<(bytes.count - 20)])
                    let (header, length) = try EntryHeader.decode(rest)
                    switch header.type {
                    case .offsetDelta:
                        let (distance, _) = try OffsetDistance.decode(UnsafeRawBufferPointer(rebasing: rest[length...]))
                        guard distance > 0, distance <= entry.offset, let found = entries.position(startingAt: entry.offset - distance),
                            let base = index.number(of: entries[found].id)
                        else { throw .damaged(path, "a delta's base is not an entry before it") }
                        whole[pack][number] = !flags[pack][base]
                    case .referenceDelta:
                        guard rest.count >= length + 20, let base = ObjectID(copying: rest[length..<(length + 20)]) else {
                            throw .damaged(path, "a reference delta ends before its base's id")
                        }
                        whole[pack][number] = holds(base) && !isKept(base)
                    default:
                        break
                    }
                }
            }
        }
    }
}
