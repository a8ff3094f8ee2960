import Foundation

/// The first parents of packed commits, each read from the first two lines of the commit's
/// header (`tree …`, `parent …`): the first 94 bytes inflated, the rest of the commit never.
///
/// Finding the root of a lineage follows every first parent back to it: a million of them
/// before a store's first compaction. Read whole through libgit2, with the small pack windows
/// ForkStore sets, a commit costs about 13 µs (13 s a million); here, with each pack mapped
/// once and nothing but the header inflated, a fraction of that.
package struct PackedFirstParents {
    /// What a commit's header says of its parents.
    package enum Answer: Equatable, Sendable {
        /// It has none: a root.
        case root
        /// Its first parent.
        case parent(ObjectID)
    }

    private struct Pack {
        let index: PackIndex
        let data: Data
    }

    private let packs: [Pack]
    private let inflater: Inflater
    private var readSinceRelease = 0
    /// The pack that held the last commit asked for: a lineage's commits lie mostly in the
    /// same pack as their parents, and a large store holds tens of packs (a roll-up writes at
    /// most ``RollUp/objectsPerPack`` objects into one), each asked in turn otherwise.
    private var lastHeld = 0

    /// `tree <40 hex>\n` and `parent <40 hex>\n`.
    package static let headerLength = 46 + 48
    /// How many headers are read between giving the mapped pages back to the system
    /// (``MappedFile/release(_:from:to:)``): a walk touches pages all over a large pack.
    static let releaseInterval = 1 << 16

    /// Maps `packs` (their indexes and the packs themselves) for reading. A pack that cannot
    /// be mapped (a roll-up in another process removed it since it was listed, or its index
    /// is damaged) is left out: its commits are read the other way, which reports damage.
    package init(packs: [PackFile]) throws(PackError) {
        var mapped: [Pack] = []
        for pack in packs {
            guard let index = try? PackIndex(path: pack.base + ".idx"), let data = try? MappedFile.map(pack.base + ".pack") else { continue }
            mapped.append(Pack(index: index, data: data))
        }
        self.packs = mapped
        inflater = try Inflater()
    }

    /// `id`'s first parent, or `.root` when it has none; nil when no pack holds `id` as a
    /// whole commit (it is loose, stored as a delta, or no commit) or its header is not the
    /// one git writes: the caller reads that commit another way, which also reports a
    /// damaged one.
    package mutating func firstParent(of id: ObjectID) throws(PackError) -> Answer? {
        readSinceRelease += 1
        if readSinceRelease >= Self.releaseInterval {
            readSinceRelease = 0
            for pack in packs { MappedFile.release(pack.data, from: 0, to: pack.data.count) }
        }
        for step in packs.indices {
            let number = (lastHeld + step) % packs.count
            guard let offset = packs[number].index.offset(of: id) else { continue }
            lastHeld = number
            guard let header = try commitHeader(at: offset, in: packs[number].data) else { return nil }
            return Self.parse(header)
        }
        return nil
    }

    /// The first bytes of the whole commit whose entry starts at `offset`; nil when the entry
    /// is not a whole commit.
    private func commitHeader(at offset: Int, in data: Data) throws(PackError) -> [UInt8]? {
        try data.withBytes { (bytes) throws(PackError) -> [UInt8]? in
            guard offset >= 12, offset < bytes.count - 20 else { throw .damaged(nil, "a pack index places an entry outside its pack") }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset..<(bytes.count - 20)])
            let (header, length) = try EntryHeader.decode(rest)
            guard header.type == .commit else { return nil }
            return try inflater.inflatePrefix(UnsafeRawBufferPointer(rebasing: rest[length...]), count: Self.headerLength)
        }
    }

    /// The answer `header` gives when it starts as git writes a commit (`tree`, then `parent`
    /// or, for a root, `author`); nil otherwise.
    package static func parse(_ header: [UInt8]) -> Answer? {
        header.withUnsafeBytes { bytes -> Answer? in
            guard bytes.count >= 53, bytes.starts(with: "tree ".utf8), bytes[45] == UInt8(ascii: "\n"),
                objectID(hex: UnsafeRawBufferPointer(rebasing: bytes[5..<45])) != nil
            else { return nil }
            if bytes[46..<53].elementsEqual("author ".utf8) { return .root }
            guard bytes.count == headerLength, bytes[46..<53].elementsEqual("parent ".utf8), bytes[93] == UInt8(ascii: "\n"),
                let parent = objectID(hex: UnsafeRawBufferPointer(rebasing: bytes[53..<93]))
            else { return nil }
            return .parent(parent)
        }
    }

    /// The id 40 hexadecimal digits spell, read without allocating (a walk reads a million).
    private static func objectID(hex digits: UnsafeRawBufferPointer) -> ObjectID? {
        var id = ObjectID.zero
        let valid = withUnsafeMutableBytes(of: &id.bytes) { target -> Bool in
            for index in 0..<20 {
                guard let high = value(of: digits[2 * index]), let low = value(of: digits[2 * index + 1]) else { return false }
                target[index] = high << 4 | low
            }
            return true
        }
        return valid ? id : nil
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
