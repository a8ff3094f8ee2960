import Foundation

/// Which objects of some packs a pruning rewrite keeps (``RollUp/rewrite(_:keeping:in:fsync:externalBase:)``):
/// those marked, and every delta base a kept delta needs, so the kept entries can be copied as
/// they are, deltas and all, without inflating anything.
///
/// It remembers one flag per object of each pack, so it costs a byte an object however many
/// are kept.
package struct KeptObjects {
    package let packs: [PackFile]
    let indexes: [PackIndex]
    /// By pack, then by the object's number in the pack's index.
    private(set) var flags: [[Bool]]

    package init(packs: [PackFile]) throws(PackError) {
        self.packs = packs
        var indexes: [PackIndex] = []
        for pack in packs { indexes.append(try PackIndex(path: pack.base + ".idx")) }
        self.indexes = indexes
        flags = indexes.map { [Bool](repeating: false, count: $0.count) }
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

    /// Keeps the base of every kept delta, and theirs, until none is missing: an offset
    /// delta's base in its own pack, a reference delta's wherever these packs hold it (one
    /// they do not hold stays where it is, outside them). Reads only the entries' headers.
    package mutating func keepDeltaBases() throws(PackError) {
        var changed = true
        while changed {
            changed = false
            for (pack, index) in indexes.enumerated() {
                let path = packs[pack].base + ".pack"
                let data = try MappedFile.map(path)
                let entries = try index.entriesInPackOrder()
                var referenced: [ObjectID] = []
                try data.withBytes { (bytes) throws(PackError) in
                    // Newest first: a base lies before its deltas, so one pass reaches it.
                    for entry in entries.reversed() {
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
                            flags[pack][base] = true
                        case .referenceDelta:
                            guard rest.count >= length + 20, let base = ObjectID(copying: rest[length..<(length + 20)]) else {
                                throw .damaged(path, "a reference delta ends before its base's id")
                            }
                            referenced.append(base)
                        default:
                            break
                        }
                    }
                }
                for base in referenced where !isKept(base) {
                    if keep(base) { changed = true }
                }
            }
        }
    }

    /// The flags of pack `pack`, by object number: what a copy of it keeps.
    func flags(ofPack pack: Int) -> [Bool] { flags[pack] }
}
