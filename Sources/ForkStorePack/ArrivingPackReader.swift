/// Reads the blobs of a pack while it arrives (``ArrivingPack``), each rebuilt and hashed to
/// its id in Swift as soon as its entry and its deltas' bases are whole, so that a fetch's
/// blobs can be checked while the fetch goes on.
///
/// It reads what it can and passes over the rest, which the indexed pack is read for after
/// the fetch: a reference delta (its base is named by an id this reader may not have met), an
/// entry larger than the object limit, anything damaged. Objects and deltas are held to
/// `maximumObjectSize` before memory is taken for them, and a chain of deltas to
/// ``DeltaChains/maximumDepth`` links and ``DeltaChains/costPerObjectLimit`` times the limit,
/// as ``MappedPacks`` reads them; a chain's deltas are read from the copy one at a time, as
/// they are applied.
package struct ArrivingPackReader {
    private let pack: ArrivingPack
    private let maximumObjectSize: Int
    private let inflater: Inflater
    /// Every entry met, in pack order: where it lies, and its object's kind (a delta's is its
    /// base's) when known.
    private var entries: [(range: Range<Int>, kind: ObjectKind?)] = []
    private var cache: ObjectCache

    /// Calls `body` with each blob of `pack` as it becomes readable, on this thread, until the
    /// pack is complete and every entry was met, or the reading is stopped. The objects made
    /// last are kept for the deltas after them, up to `cacheBudget` bytes. Returns whether
    /// every blob of the pack was read: it was complete, the reading was not stopped, and no
    /// entry was passed over.
    @discardableResult
    package static func forEachBlob(
        in pack: ArrivingPack, maximumObjectSize: Int, cacheBudget: Int = 4 << 20, _ body: (ObjectID, PackReader.Object) -> Void
    ) -> Bool {
        guard let inflater = try? Inflater() else { return false }
        var reader = ArrivingPackReader(pack: pack, maximumObjectSize: maximumObjectSize, inflater: inflater, cache: ObjectCache(budget: cacheBudget))
        var passedOver = false
        while let arrived = pack.entries(from: reader.entries.count) {
            for range in arrived {
                if pack.isStopped { return false }
                let number = reader.entries.count
                reader.entries.append((range, nil))
                guard let entry = reader.entry(number) else {
                    passedOver = true
                    continue
                }
                let kind = entry.header.type.kind ?? entry.base.flatMap { reader.entries[$0].kind }
                reader.entries[number].kind = kind
                guard kind == .blob else {
                    passedOver = passedOver || kind == nil
                    continue
                }
                guard let object = try? reader.object(number, entry) else {
                    passedOver = true
                    continue
                }
                body(object.bytes.withUnsafeBytes { ObjectID.hash(of: $0, kind: .blob) }, object)
            }
        }
        return !passedOver && pack.isComplete
    }

    private init(pack: ArrivingPack, maximumObjectSize: Int, inflater: Inflater, cache: ObjectCache) {
        (self.pack, self.maximumObjectSize, self.inflater, self.cache) = (pack, maximumObjectSize, inflater, cache)
    }

    /// Entry `number`'s header, the number of its delta's base (an earlier entry), and where
    /// its compressed data lies; nil when it cannot be read here: a reference delta, or damaged.
    private func entry(_ number: Int) -> (header: EntryHeader, base: Int?, data: Range<Int>)? {
        let range = entries[number].range
        // An entry's header and a delta's base distance take at most 20 bytes.
        guard let prefix = pack.bytes(in: range.lowerBound..<min(range.upperBound, range.lowerBound + 32)) else { return nil }
        return try? prefix.withBytes { (bytes) throws(PackError) in
            let (header, length) = try EntryHeader.decode(bytes)
            switch header.type {
            case .offsetDelta:
                let (distance, distanceLength) = try OffsetDistance.decode(UnsafeRawBufferPointer(rebasing: bytes[length...]))
                guard let base = position(startingAt: range.lowerBound - distance), base < number else { return nil }
                return (header, base, range.lowerBound + length + distanceLength..<range.upperBound)
            case .referenceDelta:
                return nil
            default:
                return (header, nil, range.lowerBound + length..<range.upperBound)
            }
        }
    }

    /// The number of the entry that starts at `offset`, among those met.
    private func position(startingAt offset: Int) -> Int? {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].range.lowerBound < offset { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].range.lowerBound == offset ? low : nil
    }

    /// The object of entry `number` (whose header was read: `first`): its chain of deltas
    /// followed back to a whole object (or one in the cache), then applied forward.
    private mutating func object(
        _ number: Int, _ first: (header: EntryHeader, base: Int?, data: Range<Int>)
    ) throws(PackError) -> PackReader.Object {
        var deltas: [(number: Int, header: EntryHeader, data: Range<Int>)] = []
        var current = number, cost = 0
        func admit(_ size: Int) throws(PackError) {
            guard size <= maximumObjectSize else { throw PackError(.tooLarge, "an arriving object takes \(size) bytes to read") }
            cost += size
            guard cost <= DeltaChains.costPerObjectLimit * maximumObjectSize else {
                throw PackError(.tooLarge, "an arriving object takes \(size) bytes to read (\(cost) along its deltas)")
            }
        }
        var object: PackReader.Object
        var next: (header: EntryHeader, base: Int?, data: Range<Int>)? = first
        while true {
            if let cached = cache[current] {
                object = cached
                break
            }
            guard let (header, base, range) = next ?? entry(current) else { throw .damaged(nil, "an arriving entry cannot be read") }
            next = nil
            try admit(header.size)
            if let kind = header.type.kind {
                object = PackReader.Object(kind: kind, bytes: try inflate(range, size: header.size))
                cache[current] = object
                break
            }
            guard let base, deltas.count < DeltaChains.maximumDepth else { throw .damaged(nil, "an arriving delta's chain is too long") }
            deltas.append((current, header, range))
            current = base
        }
        for link in deltas.reversed() {
            let delta = try inflate(link.data, size: link.header.size)
            object.bytes = try delta.withBytes { (delta) throws(PackError) in
                try object.bytes.withBytes { (base) throws(PackError) in try Delta.apply(delta, to: base, maximumSize: maximumObjectSize) }
            }
            try admit(object.bytes.count)
            cache[link.number] = object
        }
        return object
    }

    /// The compressed data at `range` of the copy, inflated to exactly `size` bytes.
    private func inflate(_ range: Range<Int>, size: Int) throws(PackError) -> [UInt8] {
        // Compressed data is at most a little larger than what it makes.
        guard range.count <= size + size / 8 + 64, let data = pack.bytes(in: range) else {
            throw .damaged(nil, "an arriving entry cannot be read")
        }
        let (bytes, consumed) = try data.withBytes { (data) throws(PackError) in try inflater.inflate(data, size: size) }
        guard consumed == data.count else { throw .damaged(nil, "an arriving entry holds bytes after its compressed data") }
        return bytes
    }
}
