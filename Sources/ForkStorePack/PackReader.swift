internal import Crypto
import Foundation
import ForkStoreLocks

/// Reads the objects of one pack through its index: each entry inflated, each delta applied to
/// its base, in pure Swift. Its use is to read a pack back before anything it replaces is
/// removed (``verify()``), checking every byte against what the index and the pack claim.
///
/// `@unchecked Sendable` so that ``verify()`` can read slices of the pack on every core: its
/// parts are immutable and Sendable but for `externalBase`, which reads through a repository
/// that allows one thread at a time, and is only ever called holding `externalLock`.
package struct PackReader: @unchecked Sendable {
    /// An object read from the pack.
    package struct Object: Sendable {
        package var kind: ObjectKind
        package var bytes: [UInt8]

        package init(kind: ObjectKind, bytes: [UInt8]) { (self.kind, self.bytes) = (kind, bytes) }
    }

    package let path: String
    private let data: Data
    private let index: PackIndex
    /// Each entry, in the order the entries lie in the pack.
    private let entries: [PackIndex.Entry]
    /// The largest object or delta it inflates or rebuilds.
    private let maximumObjectSize: Int
    /// Reads a delta's base that is not in this pack (a reference delta against an object of
    /// the repository); nil when there is none.
    private let externalBase: (ObjectID) -> Object?
    private let externalLock = NSLock()

    /// A reader of the pack at `path`, described by `index`. Objects and deltas larger than
    /// `maximumObjectSize` are refused before memory is taken for them.
    package init(
        pack path: String, index: PackIndex, maximumObjectSize: Int = Int(UInt32.max),
        externalBase: @escaping (ObjectID) -> Object? = { _ in nil }
    ) throws(PackError) {
        data = try MappedFile.map(path)
        guard data.count >= 32, data.prefix(4).elementsEqual(PackWriter.signature.prefix(4)), data[data.startIndex + 7] == 2 || data[data.startIndex + 7] == 3,
            data[data.startIndex + 4..<data.startIndex + 7].allSatisfy({ $0 == 0 })
        else { throw .damaged(path, "not a version-2 pack") }
        let declared = data[data.startIndex + 8..<data.startIndex + 12].reduce(0) { $0 << 8 | Int($1) }
        guard declared == index.count else {
            throw .damaged(path, "its header counts \(declared) objects, its index \(index.count)")
        }
        entries = try index.entriesInPackOrder()
        // In offset order, distinct (entriesInPackOrder checks): the first and last bound all.
        if let first = entries.first, let last = entries.last, first.offset < 12 || last.offset >= data.count - 20 {
            throw .damaged(path, "its index places an entry outside it")
        }
        (self.path, self.index, self.maximumObjectSize, self.externalBase) = (path, index, maximumObjectSize, externalBase)
    }

    /// Reads the whole pack back, as git's `index-pack` would: the pack's checksum and the
    /// index's, the index's checksum of the pack, each entry's CRC-32, and every object —
    /// inflated, its deltas applied — hashed to the id the index gives it. Returns how many
    /// objects it read.
    @discardableResult
    package func verify() throws(PackError) -> Int {
        let trailer = data.count - 20
        let checksum = Array(data[(data.startIndex + trailer)...])
        guard checksum == index.packChecksum else {
            throw .damaged(path, "its index was made for another pack")
        }
        guard index.checkedBytesHash == index.checksum else {
            throw .damaged(index.path, "its checksum does not match its bytes")
        }
        try readObjects(hashingPack: checksum) { _, _ in }
        return entries.count
    }

    /// Calls `body` with every object of the pack, rebuilt and hashed to the id the index gives
    /// it (each entry's CRC-32 checked too), on every core: from several threads at once, in no
    /// set order. The first failure stops the reading and is thrown.
    ///
    /// With `kind`, only the objects of that kind: the other entries are neither inflated nor
    /// checked (a delta is of its base's kind, found from the entries' headers). The objects
    /// in `skipped` are not read either.
    package func forEachObject(
        of kind: ObjectKind? = nil, skipping skipped: Set<ObjectID> = [], _ body: @Sendable (ObjectID, Object) -> Void
    ) throws(PackError) {
        let kinds = try kind.map { _ throws(PackError) in try entryKinds() }
        let skipping: @Sendable (Int) -> Bool = { [entries] number in
            kinds?[number].map { $0 != kind } ?? false || (!skipped.isEmpty && skipped.contains(entries[number].id))
        }
        try readObjects(hashingPack: nil, skipping: skipping) { id, object in
            if kind == nil || object.kind == kind { body(id, object) }
        }
    }

    /// The kind of each entry, in pack order, read from the headers alone: a delta's is its
    /// base's. Nil where the base lies outside the pack, or after the delta (a reference delta
    /// may name a later entry): only reading the object says.
    private func entryKinds() throws(PackError) -> [ObjectKind?] {
        var kinds = [ObjectKind?](repeating: nil, count: entries.count)
        for number in entries.indices {
            let (header, base, _) = try parse(number)
            switch base {
            case .none: kinds[number] = header.type.kind
            case .entry(let found) where found < number: kinds[number] = kinds[found]
            case .entry, .external: break
            }
        }
        return kinds
    }

    /// Reads every object, in slices of the pack on every core; each keeps its own small
    /// cache, and a delta whose base lies in an earlier slice follows its chain back once.
    /// With `checksum`, one more iteration hashes the whole pack meanwhile, to that checksum.
    /// Entries `skipping` names are not read.
    private func readObjects(
        hashingPack checksum: [UInt8]?, skipping: @Sendable (Int) -> Bool = { _ in false }, _ body: @Sendable (ObjectID, Object) -> Void
    ) throws(PackError) {
        let trailer = data.count - 20
        let slices = min(ProcessInfo.processInfo.activeProcessorCount, max(1, entries.count / 4_096))
        let failure = Locked<PackError?>(nil)
        DispatchQueue.concurrentPerform(iterations: slices + 1) { slice in
            do throws(PackError) {
                if slice == slices {
                    guard let checksum else { return }
                    // A megabyte at a time, each given back once hashed.
                    var hasher = Insecure.SHA1()
                    for start in stride(from: 0, to: trailer, by: 1 << 20) {
                        let end = min(trailer, start + (1 << 20))
                        hasher.update(data: data[data.startIndex + start..<data.startIndex + end])
                        MappedFile.release(data, from: start, to: end)
                    }
                    guard Array(hasher.finalize()) == checksum else { throw .damaged(path, "its checksum does not match its bytes") }
                    return
                }
                var cache = ObjectCache()
                let inflater = try Inflater()
                let numbers = slice * entries.count / slices..<(slice + 1) * entries.count / slices
                for number in numbers {
                    if number % 1_024 == 0 {
                        if failure.withLock({ $0 != nil }) { return }
                        // The pages read so far leave this process's resident memory.
                        if let first = numbers.first { MappedFile.release(data, from: entries[first].offset, to: entries[number].offset) }
                    }
                    if skipping(number) { continue }
                    let object = try check(number, trailer: trailer, cache: &cache, inflater: inflater)
                    body(entries[number].id, object)
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Checks entry `number`: its CRC-32, and its object hashed to the id the index gives.
    /// Returns the object.
    private func check(_ number: Int, trailer: Int, cache: inout ObjectCache, inflater: Inflater) throws(PackError) -> Object {
        let entry = entries[number]
        let next = number + 1 < entries.count ? entries[number + 1].offset : trailer
        let crc = data.withUnsafeBytes { crc32(of: UnsafeRawBufferPointer(rebasing: $0[entry.offset..<next])) }
        guard crc == entry.crc else { throw .damaged(path, "object \(entry.id.hex) does not match its CRC-32") }
        let object = try resolve(number, cache: &cache, inflater: inflater)
        let id = object.bytes.withUnsafeBytes { ObjectID.hash(of: $0, kind: object.kind) }
        guard id == entry.id else { throw .damaged(path, "the entry at \(entry.offset) holds \(id.hex), not \(entry.id.hex)") }
        return object
    }

    /// What one entry says: its header, where its data starts, and for a delta its base.
    private enum Base {
        case none
        case entry(Int)
        case external(ObjectID)
    }

    private func parse(_ number: Int) throws(PackError) -> (header: EntryHeader, base: Base, data: Range<Int>) {
        let entry = entries[number]
        let end = number + 1 < entries.count ? entries[number + 1].offset : data.count - 20
        return try data.withBytes { (pack) throws(PackError) in
            let bytes = UnsafeRawBufferPointer(rebasing: pack[entry.offset..<end])
            var (header, cursor) = try EntryHeader.decode(bytes)
            guard header.size <= maximumObjectSize else {
                throw PackError(.tooLarge, path: path, "object \(entry.id.hex) is \(header.size) bytes, over the limit of \(maximumObjectSize)")
            }
            var base = Base.none
            switch header.type {
            case .offsetDelta:
                let (distance, length) = try OffsetDistance.decode(UnsafeRawBufferPointer(rebasing: bytes[cursor...]))
                cursor += length
                guard distance > 0, distance <= entry.offset, let found = entries.position(startingAt: entry.offset - distance) else {
                    throw .damaged(path, "the delta at \(entry.offset) names no entry before it as its base")
                }
                base = .entry(found)
            case .referenceDelta:
                guard let id = ObjectID(copying: bytes[cursor...]) else { throw .damaged(path, "the delta at \(entry.offset) is cut short") }
                cursor += 20
                if let offset = index.offset(of: id), let found = entries.position(startingAt: offset) { base = .entry(found) } else { base = .external(id) }
            default:
                break
            }
            return (header, base, entry.offset + cursor..<end)
        }
    }

    /// The object of entry `number`: its chain of deltas followed back to a whole object (or
    /// one in `cache`), then applied forward.
    private func resolve(_ number: Int, cache: inout ObjectCache, inflater: Inflater) throws(PackError) -> Object {
        var chain: [(number: Int, delta: Range<Int>, size: Int)] = []
        var current = number
        var object: Object
        walk: while true {
            if let cached = cache[current] {
                object = cached
                break walk
            }
            let (header, base, range) = try parse(current)
            switch base {
            case .none:
                guard let kind = header.type.kind else { throw .damaged(path, "an entry has no kind") }
                object = Object(kind: kind, bytes: try inflate(range, size: header.size, inflater: inflater))
                cache[current] = object
                break walk
            case .entry(let found):
                chain.append((current, range, header.size))
                // Offset deltas only point back, so only reference deltas can make a loop.
                guard chain.count <= entries.count else { throw .damaged(path, "its deltas make a loop") }
                current = found
            case .external(let id):
                chain.append((current, range, header.size))
                // The repository behind it is used from one thread at a time.
                guard let found = externalLock.withLock({ externalBase(id) }) else {
                    throw .damaged(path, "a delta's base \(id.hex) is neither in the pack nor in the repository")
                }
                object = found
                break walk
            }
        }
        for link in chain.reversed() {
            let delta = try inflate(link.delta, size: link.size, inflater: inflater)
            let bytes = try delta.withBytes { (delta) throws(PackError) in
                try object.bytes.withBytes { (base) throws(PackError) in try Delta.apply(delta, to: base, maximumSize: maximumObjectSize) }
            }
            object = Object(kind: object.kind, bytes: bytes)
            cache[link.number] = object
        }
        return object
    }

    private func inflate(_ range: Range<Int>, size: Int, inflater: Inflater) throws(PackError) -> [UInt8] {
        do throws(PackError) {
            let (bytes, consumed) = try data.withBytes { (pack) throws(PackError) in
                try inflater.inflate(UnsafeRawBufferPointer(rebasing: pack[range]), size: size)
            }
            guard consumed == range.count else { throw PackError.damaged(nil, "an entry holds bytes after its compressed data") }
            return bytes
        } catch {
            throw PackError(error.code, path: path, "at \(range.lowerBound): \(error.message)")
        }
    }
}
