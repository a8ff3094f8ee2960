/// A git delta that rebuilds a tree from an earlier version of the same tree (the data of an
/// offset-delta pack entry): each entry found unchanged in the base is copied from it, the
/// others are inserted. A store's trees change a few entries at a time, so a 10 KB shard tree
/// rewritten by a batch costs a delta of a few hundred bytes, found without the delta search of
/// libgit2's packbuilder.
///
/// The format (git's `patch-delta.c`): the base's size and the result's size as 7-bit groups,
/// least significant first; then instructions: a byte with bit 7 set copies from the base (bits
/// 0–3 say which offset bytes follow, bits 4–6 which size bytes, little-endian; a size of 0
/// means 0x10000), a byte of 1–127 inserts that many bytes that follow.
enum TreeDelta {
    /// The delta from `base` to `target`, both tree objects' data; nil when either does not
    /// parse as a tree or the delta would not be smaller than `target`.
    static func make(from base: UnsafeRawBufferPointer, to target: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let baseEntries = entries(of: base), let targetEntries = entries(of: target) else { return nil }
        var offsets: [EntryBytes: Int] = [:]
        offsets.reserveCapacity(baseEntries.count)
        for entry in baseEntries { offsets[EntryBytes(base, entry)] = entry.lowerBound }
        var delta: [UInt8] = []
        appendSize(base.count, to: &delta)
        appendSize(target.count, to: &delta)
        var copy: Range<Int>? = nil
        var insert: Range<Int>? = nil  // always a run of whole target entries
        func flushCopy() {
            guard let range = copy else { return }
            var start = range.lowerBound
            while start < range.upperBound {
                let length = min(0x10000, range.upperBound - start)
                appendCopy(offset: start, length: length, to: &delta)
                start += length
            }
            copy = nil
        }
        func flushInsert() {
            guard let range = insert else { return }
            var start = range.lowerBound
            while start < range.upperBound {
                let length = min(127, range.upperBound - start)
                delta.append(UInt8(length))
                delta.append(contentsOf: target[start..<start + length])
                start += length
            }
            insert = nil
        }
        for entry in targetEntries {
            if let offset = offsets[EntryBytes(target, entry)] {
                flushInsert()
                if let range = copy, range.upperBound == offset {
                    copy = range.lowerBound..<offset + entry.count
                } else {
                    flushCopy()
                    copy = offset..<offset + entry.count
                }
            } else {
                flushCopy()
                insert = (insert?.lowerBound ?? entry.lowerBound)..<entry.upperBound
            }
            if delta.count >= target.count { return nil }
        }
        flushCopy()
        flushInsert()
        return delta.count < target.count ? delta : nil
    }

    /// One entry's bytes (mode, name and id), compared and hashed by content.
    private struct EntryBytes: Hashable {
        let bytes: UnsafeRawBufferPointer
        init(_ tree: UnsafeRawBufferPointer, _ range: Range<Int>) { bytes = UnsafeRawBufferPointer(rebasing: tree[range]) }
        static func == (left: Self, right: Self) -> Bool { left.bytes.elementsEqual(right.bytes) }
        func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
    }

    /// The byte ranges of a tree's entries (`<mode> <name>\0<20-byte id>`); nil when it does not
    /// parse.
    private static func entries(of tree: UnsafeRawBufferPointer) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < tree.count {
            var cursor = start
            while cursor < tree.count, tree[cursor] != 0 { cursor += 1 }
            let end = cursor + 21
            guard cursor > start, end <= tree.count else { return nil }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }

    private static func appendSize(_ size: Int, to delta: inout [UInt8]) {
        var rest = size
        repeat {
            let byte = UInt8(rest & 0x7F)
            rest >>= 7
            delta.append(rest != 0 ? byte | 0x80 : byte)
        } while rest != 0
    }

    private static func appendCopy(offset: Int, length: Int, to delta: inout [UInt8]) {
        var instruction: UInt8 = 0x80
        var operands: [UInt8] = []
        for byte in 0..<4 where (offset >> (8 * byte)) & 0xFF != 0 {
            instruction |= 1 << byte
            operands.append(UInt8((offset >> (8 * byte)) & 0xFF))
        }
        let size = length == 0x10000 ? 0 : length
        for byte in 0..<3 where (size >> (8 * byte)) & 0xFF != 0 {
            instruction |= 0x10 << byte
            operands.append(UInt8((size >> (8 * byte)) & 0xFF))
        }
        delta.append(instruction)
        delta.append(contentsOf: operands)
    }
}
