extension Delta {
    /// The object a delta rebuilds from `base` (git's `patch-delta.c`), refusing a delta whose
    /// base size is not `base`'s, whose result would be larger than `maximumSize` (checked from
    /// its header, before any memory is taken), or whose instructions copy from outside the
    /// base, insert past the delta's end, or do not make exactly the size the header gives.
    package static func apply(_ delta: UnsafeRawBufferPointer, to base: UnsafeRawBufferPointer, maximumSize: Int = Int(UInt32.max)) throws(PackError) -> [UInt8] {
        var cursor = 0
        func size() throws(PackError) -> Int {
            var value = 0, shift = 0, byte: UInt8 = 0x80
            while byte & 0x80 != 0 {
                guard cursor < delta.count else { throw .damaged(nil, "a delta's header is cut short") }
                guard shift <= 56 else { throw .damaged(nil, "a delta's size is too large") }
                byte = delta[cursor]
                cursor += 1
                value |= Int(byte & 0x7F) << shift
                shift += 7
            }
            return value
        }
        let baseSize = try size()
        guard baseSize == base.count else {
            throw .damaged(nil, "a delta expects a base of \(baseSize) bytes, not \(base.count)")
        }
        let resultSize = try size()
        guard resultSize <= maximumSize else {
            throw PackError(.tooLarge, "a delta would make an object of \(resultSize) bytes, over the limit of \(maximumSize)")
        }
        var result: [UInt8] = []
        result.reserveCapacity(resultSize)
        while cursor < delta.count {
            let instruction = delta[cursor]
            cursor += 1
            if instruction & 0x80 != 0 {
                var offset = 0, length = 0
                for byte in 0..<4 where instruction & (1 << byte) != 0 {
                    guard cursor < delta.count else { throw .damaged(nil, "a delta's copy is cut short") }
                    offset |= Int(delta[cursor]) << (8 * byte)
                    cursor += 1
                }
                for byte in 0..<3 where instruction & (0x10 << byte) != 0 {
                    guard cursor < delta.count else { throw .damaged(nil, "a delta's copy is cut short") }
                    length |= Int(delta[cursor]) << (8 * byte)
                    cursor += 1
                }
                if length == 0 { length = 0x10000 }
                guard offset <= base.count, length <= base.count - offset, length <= resultSize - result.count else {
                    throw .damaged(nil, "a delta copies from outside its base or past its result")
                }
                result.append(contentsOf: base[offset..<offset + length])
            } else if instruction != 0 {
                let length = Int(instruction)
                guard length <= delta.count - cursor, length <= resultSize - result.count else {
                    throw .damaged(nil, "a delta inserts past its end or past its result")
                }
                result.append(contentsOf: delta[cursor..<cursor + length])
                cursor += length
            } else {
                throw .damaged(nil, "a delta holds the reserved instruction 0")
            }
        }
        guard result.count == resultSize else {
            throw .damaged(nil, "a delta makes \(result.count) bytes, not the \(resultSize) its header says")
        }
        return result
    }
}
