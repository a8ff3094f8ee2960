/// Git deltas (the data of an offset-delta pack entry), made without the delta search of
/// libgit2's packbuilder: a tree against its earlier version (``tree(from:to:)``), a blob
/// against a similar one (``bytes(from:to:)``).
///
/// The format (git's `patch-delta.c`): the base's size and the result's size as 7-bit groups,
/// least significant first; then instructions: a byte with bit 7 set copies from the base (bits
/// 0–3 say which offset bytes follow, bits 4–6 which size bytes, little-endian; a size of 0
/// means 0x10000), a byte of 1–127 inserts that many bytes that follow.
package enum Delta {
    /// A delta's header: the size of its base, then the size of the object it makes, each 7
    /// bits a byte, least significant first.
    package static func header(base: Int, result: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for size in [base, result] {
            var rest = size
            repeat {
                let byte = UInt8(rest & 0x7F)
                rest >>= 7
                bytes.append(rest != 0 ? byte | 0x80 : byte)
            } while rest != 0
        }
        return bytes
    }

    /// A tree rebuilt from an earlier version of it: each entry found unchanged in the base is
    /// copied from it, the others are inserted. A store's trees change a few entries at a time,
    /// so a 10 KB shard tree rewritten by a batch costs a delta of a few hundred bytes. Nil when
    /// either does not parse as a tree or the delta would not be smaller than `target`.
    package static func tree(from base: UnsafeRawBufferPointer, to target: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let baseEntries = entries(of: base), let targetEntries = entries(of: target) else { return nil }
        var offsets: [Bytes: Int] = [:]
        offsets.reserveCapacity(baseEntries.count)
        for entry in baseEntries { offsets[Bytes(base[entry])] = entry.lowerBound }
        var delta = Encoder(base: base, target: target)
        for entry in targetEntries {
            if let offset = offsets[Bytes(target[entry])] {
                delta.copy(offset, count: entry.count)
            } else {
                delta.insert(entry)
            }
            guard delta.isSmaller else { return nil }
        }
        return delta.finished()
    }

    /// `target` rebuilt from `base` where they share runs of 16 bytes or more (found through
    /// the base's 16-byte blocks, then extended both ways): records of one collection share
    /// their keys and much of their text. Nil when the delta would not be under half of
    /// `target`, as git requires before it keeps one.
    package static func bytes(from base: UnsafeRawBufferPointer, to target: UnsafeRawBufferPointer) -> [UInt8]? {
        let block = 16
        guard base.count >= block, target.count >= 2 * block else { return nil }
        // The base's blocks in a table of one slot per multiplicative hash, not a Dictionary
        // (hashing at every position of the target was a tenth of a first fetch); a block found
        // there is compared before it is used, and a block whose slot is taken is left out.
        let slotBits = max(4, Int.bitWidth - (4 * base.count / block).leadingZeroBitCount)
        func slot(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int {
            let first = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let second = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            return Int(truncatingIfNeeded: ((first ^ (second &* 0xFF51_AFD7_ED55_8CCD)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - slotBits))
        }
        var blocks = [Int](repeating: -1, count: 1 << slotBits)
        for start in stride(from: 0, through: base.count - block, by: block) where blocks[slot(base, at: start)] < 0 {
            blocks[slot(base, at: start)] = start
        }
        var delta = Encoder(base: base, target: target, limit: target.count / 2)
        var position = 0, unmatched = 0  // target[unmatched..<position] waits to be inserted
        while position + block <= target.count {
            let found = blocks[slot(target, at: position)]
            guard found >= 0, base[found..<found + block].elementsEqual(target[position..<position + block]) else {
                position += 1
                continue
            }
            var start = found, end = found + block, at = position
            while start > 0, at > unmatched, base[start - 1] == target[at - 1] {
                start -= 1
                at -= 1
            }
            var after = position + block
            while end < base.count, after < target.count, base[end] == target[after] {
                end += 1
                after += 1
            }
            if at > unmatched { delta.insert(unmatched..<at) }
            delta.copy(start, count: end - start)
            position = after
            unmatched = after
            guard delta.isSmaller else { return nil }
        }
        if unmatched < target.count { delta.insert(unmatched..<target.count) }
        return delta.isSmaller ? delta.finished() : nil
    }

    /// A tree entry's bytes, compared and hashed by content.
    private struct Bytes: Hashable {
        let bytes: UnsafeRawBufferPointer
        init(_ slice: Slice<UnsafeRawBufferPointer>) { bytes = UnsafeRawBufferPointer(rebasing: slice) }
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

    /// Writes a delta's instructions, joining adjacent copies and adjacent inserts.
    private struct Encoder {
        private let target: UnsafeRawBufferPointer
        private let limit: Int
        private var delta: [UInt8] = []
        private var pendingCopy: Range<Int>?
        private var pendingInsert: Range<Int>?

        init(base: UnsafeRawBufferPointer, target: UnsafeRawBufferPointer, limit: Int? = nil) {
            self.target = target
            self.limit = limit ?? target.count
            delta = Delta.header(base: base.count, result: target.count)
        }

        /// Whether the delta so far is still under its limit.
        var isSmaller: Bool { delta.count < limit }

        mutating func copy(_ offset: Int, count: Int) {
            flushInsert()
            if let range = pendingCopy, range.upperBound == offset {
                pendingCopy = range.lowerBound..<offset + count
            } else {
                flushCopy()
                pendingCopy = offset..<offset + count
            }
        }

        mutating func insert(_ range: Range<Int>) {
            flushCopy()
            pendingInsert = (pendingInsert?.lowerBound ?? range.lowerBound)..<range.upperBound
        }

        mutating func finished() -> [UInt8]? {
            flushCopy()
            flushInsert()
            return isSmaller ? delta : nil
        }

        private mutating func flushCopy() {
            guard let range = pendingCopy else { return }
            var start = range.lowerBound
            while start < range.upperBound {
                let length = min(0x10000, range.upperBound - start)
                var instruction: UInt8 = 0x80
                var operands: [UInt8] = []
                for byte in 0..<4 where (start >> (8 * byte)) & 0xFF != 0 {
                    instruction |= 1 << byte
                    operands.append(UInt8((start >> (8 * byte)) & 0xFF))
                }
                let size = length == 0x10000 ? 0 : length
                for byte in 0..<3 where (size >> (8 * byte)) & 0xFF != 0 {
                    instruction |= 0x10 << byte
                    operands.append(UInt8((size >> (8 * byte)) & 0xFF))
                }
                delta.append(instruction)
                delta.append(contentsOf: operands)
                start += length
            }
            pendingCopy = nil
        }

        private mutating func flushInsert() {
            guard let range = pendingInsert else { return }
            var start = range.lowerBound
            while start < range.upperBound {
                let length = min(127, range.upperBound - start)
                delta.append(UInt8(length))
                delta.append(contentsOf: target[start..<start + length])
                start += length
            }
            pendingInsert = nil
        }

    }
}
