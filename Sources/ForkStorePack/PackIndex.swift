internal import Crypto
import Foundation

/// A version-2 pack index, read where it lies in the file (mapped, not copied): the fan-out
/// table, the sorted object ids, their CRC-32s, their offsets in the pack (those past 2 GB in
/// a table of 8-byte offsets), the pack's checksum and the index's own.
///
/// One reader serves both uses: looking an id up (``offset(of:)``) and walking the pack's
/// entries in the order they lie in it (``entriesInPackOrder()``). The layout is checked when
/// the index is opened, so no later read goes outside the file.
package struct PackIndex: Sendable {
    /// One entry: an object's id, where its entry starts in the pack, and the CRC-32 of the
    /// entry's bytes.
    package struct Entry: Sendable, Equatable {
        package var id: ObjectID
        package var offset: Int
        package var crc: UInt32

        package init(id: ObjectID, offset: Int, crc: UInt32) { (self.id, self.offset, self.crc) = (id, offset, crc) }
    }

    static let magic: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
    static let idsStart = 8 + 256 * 4

    /// The index's bytes, mapped where it lies (or copied, for one held in memory).
    private let storage: PinnedBytes
    package let path: String
    /// How many objects the pack holds.
    package let count: Int
    private let largeOffsets: Int

    /// Opens the index at `path`.
    package init(path: String) throws(PackError) {
        try self.init(storage: PinnedBytes(mapping: path), path: path)
    }

    /// Reads an index held in memory; `path` names it in errors.
    package init(data: Data, path: String) throws(PackError) {
        try self.init(storage: PinnedBytes(copying: data), path: path)
    }

    private init(storage: PinnedBytes, path: String) throws(PackError) {
        let raw = storage.bytes
        guard raw.count >= Self.idsStart + 40, raw.prefix(8).elementsEqual(Self.magic) else {
            throw .damaged(path, "not a version-2 pack index")
        }
        var previous = 0
        for slot in 0..<256 {
            let value = Self.integer(raw, at: 8 + slot * 4)
            guard value >= previous else { throw .damaged(path, "its fan-out table decreases") }
            previous = value
        }
        let count = previous
        let fixed = Self.idsStart + count * 28 + 40
        guard raw.count >= fixed, (raw.count - fixed) % 8 == 0 else {
            throw .damaged(path, "its size does not fit its \(count) entries")
        }
        (self.storage, self.path, self.count, largeOffsets) = (storage, path, count, (raw.count - fixed) / 8)
    }

    /// The object count of a version-2 pack index (the last entry of its fan-out table),
    /// reading only its first kilobyte; nil when it is not one.
    package static func objectCount(at path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: idsStart), header.count == idsStart, header.prefix(8).elementsEqual(magic)
        else { return nil }
        return header.suffix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    private static func integer(_ raw: UnsafeRawBufferPointer, at position: Int) -> Int {
        Int(raw[position]) << 24 | Int(raw[position + 1]) << 16 | Int(raw[position + 2]) << 8 | Int(raw[position + 3])
    }

    private var crcsStart: Int { Self.idsStart + count * 20 }
    private var offsetsStart: Int { crcsStart + count * 4 }
    private var largeStart: Int { offsetsStart + count * 4 }

    /// Gives the pages of a mapped index back to the system (``PinnedBytes/releasePages()``).
    package func releasePages() {
        storage.releasePages()
    }

    /// The id of the `number`th entry in id order.
    package func id(at number: Int) -> ObjectID {
        ObjectID(copying: UnsafeRawBufferPointer(rebasing: storage.bytes[Self.idsStart + number * 20..<Self.idsStart + number * 20 + 20])) ?? .zero
    }

    /// The `number`th entry in id order.
    package func entry(at number: Int) throws(PackError) -> Entry {
        let raw = storage.bytes
        var offset = Self.integer(raw, at: offsetsStart + number * 4)
        if offset & 0x8000_0000 != 0 {
            let slot = offset & 0x7FFF_FFFF
            guard slot < largeOffsets else { throw .damaged(path, "a large offset points outside it") }
            let position = largeStart + slot * 8
            offset = Self.integer(raw, at: position) << 32 | Self.integer(raw, at: position + 4)
            guard offset >= 0x8000_0000 else { throw .damaged(path, "a large offset is below 2 GB") }
        }
        return Entry(id: id(at: number), offset: offset, crc: UInt32(Self.integer(raw, at: crcsStart + number * 4)))
    }

    /// Where `id`'s entry starts in the pack, or nil when the pack does not hold it (or its
    /// large offset points outside the index).
    package func offset(of id: ObjectID) -> Int? {
        guard let number = number(of: id) else { return nil }
        let raw = storage.bytes
        let offset = Self.integer(raw, at: offsetsStart + number * 4)
        guard offset & 0x8000_0000 != 0 else { return offset }
        let slot = offset & 0x7FFF_FFFF
        guard slot < largeOffsets else { return nil }
        return Self.integer(raw, at: largeStart + slot * 8) << 32 | Self.integer(raw, at: largeStart + slot * 8 + 4)
    }

    /// The position of `id` in id order, or nil when the pack does not hold it.
    package func number(of id: ObjectID) -> Int? {
        withUnsafeBytes(of: id.bytes) { wanted -> Int? in
            let raw = storage.bytes
            guard let base = raw.baseAddress, let wanted = wanted.baseAddress else { return nil }
            let first = Int(id.firstByte)
            var low = first == 0 ? 0 : Self.integer(raw, at: 8 + (first - 1) * 4)
            var high = Self.integer(raw, at: 8 + first * 4)
            while low < high {
                let middle = (low + high) / 2
                let order = memcmp(base + Self.idsStart + middle * 20, wanted, 20)
                if order == 0 { return middle }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// Every entry, in the order the entries lie in the pack. Refuses an index whose ids are
    /// not in strictly increasing order within the buckets its fan-out table gives: lookups
    /// in it would miss objects it lists.
    package func entriesInPackOrder() throws(PackError) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        let raw = storage.bytes
        var bucket = 0
        for number in 0..<count {
            while Self.integer(raw, at: 8 + bucket * 4) <= number { bucket += 1 }
            let id = raw.baseAddress.map { $0 + Self.idsStart + number * 20 }
            guard let id, Int(id.load(as: UInt8.self)) == bucket, number == 0 || memcmp(id - 20, id, 20) < 0 else {
                throw .damaged(path, "its object ids are not in order")
            }
        }
        for number in 0..<count { entries.append(try entry(at: number)) }
        entries.sort { $0.offset < $1.offset }
        for (earlier, later) in zip(entries, entries.dropFirst()) where earlier.offset == later.offset {
            throw .damaged(path, "two objects start at offset \(later.offset)")
        }
        return entries
    }

    /// The checksum of the pack this index describes (the pack's last 20 bytes).
    package var packChecksum: [UInt8] { Array(storage.bytes[storage.bytes.count - 40..<storage.bytes.count - 20]) }

    /// The index's own checksum (its last 20 bytes): the SHA-1 of everything before it.
    package var checksum: [UInt8] { Array(storage.bytes.suffix(20)) }

    /// The SHA-1 of the bytes the index's own checksum covers.
    var checkedBytesHash: [UInt8] { Array(Insecure.SHA1.hash(data: UnsafeRawBufferPointer(rebasing: storage.bytes.dropLast(20)))) }
}

extension [PackIndex] {
    /// The first of these indexes that holds `id` (the number of its pack), and where the
    /// object's entry starts in that pack.
    func location(of id: ObjectID) -> (pack: Int, offset: Int)? {
        for number in indices {
            if let offset = self[number].offset(of: id) { return (number, offset) }
        }
        return nil
    }
}

extension [PackIndex.Entry] {
    /// The position of the entry starting at `offset`, in entries in pack order
    /// (``PackIndex/entriesInPackOrder()``), found by binary search: a dictionary of every
    /// offset cost more memory than the rest of a read-back.
    func position(startingAt offset: Int) -> Int? {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low].offset == offset ? low : nil
    }
}
