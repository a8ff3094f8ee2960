import Foundation

/// What reading a packed object costs, known from headers alone: its entry's header, and for a
/// delta the size of the object it makes (the first bytes of its data), then the same for its
/// base, back to a whole object. A small object can be a delta on a very large base, which any
/// reader rebuilds first: ``check(_:limit:object:outsidePacks:)`` refuses such a chain before
/// anything reads it. Holds the packs of one object database, each mapped on first use.
package final class DeltaChains {
    /// The most a chain may cost to read, in multiples of the object limit: every entry's data
    /// and every object a delta makes along it, added up. git's chains (50 deep by default) of
    /// records and trees cost far less.
    package static let costPerObjectLimit = 64
    /// The deepest chain, git's own maximum (`pack-objects --depth`).
    package static let maximumDepth = 4_095

    private let indexes: [PackIndex]
    /// Beside each index, its pack's path.
    private let paths: [String]
    private var mapped: [Int: PinnedBytes] = [:]
    private let inflater: Inflater
    /// What the chain from a delta's entry down to its whole base costs, for every delta
    /// whose chain passed under ``checkedLimit``: a chain shared by many objects (the versions
    /// of one record, each a delta on the next) is read once, not once for each of them, so
    /// checking every object of a chain costs its length, not its square.
    private var checkedChains: [Entry: (cost: Int, depth: Int)] = [:]
    private var checkedLimit: Int?

    private struct Entry: Hashable {
        var pack: Int
        var offset: Int
    }

    /// The packs in `folder` (an `objects/pack` folder).
    package init(packFolder folder: String) throws(PackError) {
        var indexes: [PackIndex] = [], paths: [String] = []
        for pack in PackFile.packs(in: folder) {
            indexes.append(try PackIndex(path: pack.base + ".idx"))
            paths.append(pack.base + ".pack")
        }
        (self.indexes, self.paths) = (indexes, paths)
        inflater = try Inflater()
    }

    /// Checks the chain of `id` when a pack holds it: every entry's data and every object a
    /// delta makes at most `limit` bytes, all of them together at most ``costPerObjectLimit``
    /// times it, at most ``maximumDepth`` deltas. A delta's base that no pack holds (a loose
    /// object) goes to `outsidePacks`, which checks it where it is. Throws ``LimitExceeded``
    /// naming `object`, or ``PackError`` for an entry that cannot be read.
    package func check(_ id: ObjectID, limit: Int, object: String, outsidePacks: (ObjectID) throws -> Void) throws {
        if checkedLimit != limit { (checkedChains, checkedLimit) = ([:], limit) }
        var cost = 0, depth = 0
        func admit(_ size: Int, _ what: @autoclosure () -> String) throws(LimitExceeded) {
            guard size <= limit else { throw LimitExceeded(.objectSize, maximum: limit, size: size, object: what()) }
            cost += size
            try admitTotal()
        }
        func admitTotal() throws(LimitExceeded) {
            guard cost <= Self.costPerObjectLimit * limit else {
                throw LimitExceeded(
                    .objectSize, maximum: Self.costPerObjectLimit * limit, size: cost, object: "the chain of deltas of \(object)")
            }
        }
        // The deltas read on the way down, each with what it adds (its data and what it makes).
        var deltas: [(entry: Entry, cost: Int)] = []
        var next = indexes.location(of: id)
        while let (pack, offset) = next {
            let here = Entry(pack: pack, offset: offset)
            if let rest = checkedChains[here] {
                cost += rest.cost
                depth += rest.depth
                try admitTotal()
                break
            }
            let packed = try bytes(of: pack)
            let entry = try EntryAtOffset(at: offset, in: packed.bytes)
            let whole = entry.header.type.kind != nil
            try admit(entry.header.size, whole ? (depth == 0 ? object : "the delta base of \(object)") : "a delta of \(object)")
            switch entry.base {
            case nil: next = nil
            case .offset(let base)?: next = (pack, base)
            case .id(let base)?:
                next = indexes.location(of: base)
                if next == nil { try outsidePacks(base) }
            }
            guard !whole else { break }
            let data = UnsafeRawBufferPointer(rebasing: packed.bytes[entry.data..<packed.bytes.count - 20])
            let made = try Self.resultSize(inflater.inflatePrefix(data, count: 20))
            try admit(made, "an object rebuilt along the deltas of \(object)")
            deltas.append((here, entry.header.size + made))
            depth += 1
            guard depth <= Self.maximumDepth else { throw PackError.damaged(nil, "\(object) is stored as more than \(Self.maximumDepth) deltas") }
        }
        guard depth <= Self.maximumDepth else { throw PackError.damaged(nil, "\(object) is stored as more than \(Self.maximumDepth) deltas") }
        // The chain passed: remember what it costs from each of its deltas down.
        var rest = (cost: cost, depth: depth)
        for delta in deltas {
            checkedChains[delta.entry] = rest
            rest = (rest.cost - delta.cost, rest.depth - 1)
        }
    }

    private func bytes(of pack: Int) throws(PackError) -> PinnedBytes {
        if let bytes = mapped[pack] { return bytes }
        let bytes = try PinnedBytes(mapping: paths[pack])
        guard bytes.bytes.count >= 32 else { throw .damaged(paths[pack], "not a pack") }
        mapped[pack] = bytes
        return bytes
    }

    /// The size of the object a delta makes: the second of the two sizes its data starts with.
    private static func resultSize(_ start: [UInt8]) throws(PackError) -> Int {
        var sizes: [Int] = [], value = 0, shift = 0
        for byte in start where sizes.count < 2 {
            guard shift <= 56 else { throw .damaged(nil, "a delta's size is too large") }
            value |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 {
                sizes.append(value)
                (value, shift) = (0, 0)
            }
        }
        guard sizes.count == 2 else { throw .damaged(nil, "a delta's sizes are cut short") }
        return sizes[1]
    }
}
