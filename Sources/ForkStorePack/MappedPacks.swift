import Foundation
import ForkStoreLocks

/// A repository's packs, each mapped whole, read by object id from any thread: an entry
/// inflated, a delta applied to its base, in pure Swift.
///
/// For reading many objects in no order, as a listing in id order does: libgit2 reads packs
/// through small windows (1 MB under an 8 MB budget, as ForkStore sets it up, to bound its
/// memory), and reading one object here and the next far away it mapped and unmapped a window
/// for almost every object, one thread at a time. Here each pack is mapped once and read by
/// every thread at once. The pages read stay in the process's resident memory: when the packs
/// are larger than `residentBudget` in all, they are given back to the system each time reads
/// may have touched that much of them (a file mapping loses nothing: a later read maps a page
/// again), so memory stays bounded however large the packs.
package final class MappedPacks: Sendable {
    private let indexes: [PackIndex]
    /// Beside each index, its pack: the bytes and the path.
    private let packs: [(bytes: PinnedBytes, path: String)]
    /// Nil when the packs fit in the budget whole.
    private let residentBudget: Int?
    /// What reads may have touched since the pages were last given back, and how often they were.
    private let reading = Locked<(bytes: Int, releases: Int)>((0, 0))

    /// `packs` mapped. One that cannot be mapped, or whose index cannot be read, is left out:
    /// its objects are not found here.
    package init(_ packs: [PackFile], residentBudget: Int = 64 << 20) {
        let opened = packs.compactMap { pack -> (PackIndex, (PinnedBytes, String))? in
            guard let index = try? PackIndex(path: pack.base + ".idx"), let bytes = try? PinnedBytes(mapping: pack.base + ".pack"),
                bytes.bytes.count >= 32
            else { return nil }
            return (index, (bytes, pack.base + ".pack"))
        }
        (indexes, self.packs) = (opened.map(\.0), opened.map(\.1))
        self.residentBudget = self.packs.reduce(0) { $0 + $1.bytes.bytes.count } > residentBudget ? residentBudget : nil
    }

    /// The object `id`, its deltas applied; nil when no pack holds it, or a base of its
    /// deltas lies outside them (a loose object): the caller reads it elsewhere. Every entry,
    /// and every object its deltas make, is at most `maximumSize` bytes, checked before memory
    /// is taken for it; a chain is at most ``DeltaChains/maximumDepth`` deltas long, and costs
    /// at most ``DeltaChains/costPerObjectLimit`` times `maximumSize` in all, as a fetch's
    /// chains are held to.
    package func object(_ id: ObjectID, maximumSize: Int, inflater: Inflater) throws(PackError) -> PackReader.Object? {
        var none = ObjectCache(budget: 0)
        return try object(id, maximumSize: maximumSize, inflater: inflater, cache: &none)
    }

    /// ``object(_:maximumSize:inflater:)``, keeping what each delta makes in `cache`, and
    /// starting from what it holds: reading the versions of a tree, each a delta on the
    /// next, each costs one delta rather than its whole chain (a first sync's shard folders
    /// lie 23 deltas deep on average). The cost a chain is held to counts from the object
    /// found in the cache, which was held to the limit when it was made.
    package func object(_ id: ObjectID, maximumSize: Int, inflater: Inflater, cache: inout ObjectCache) throws(PackError) -> PackReader.Object? {
        guard var location = indexes.location(of: id) else { return nil }
        var deltas: [(pack: Int, entry: EntryAtOffset, key: Int)] = []
        var object: PackReader.Object
        var cost = 0
        // Packs are named by number, and their paths looked up only for an error: a copy of a
        // pack's entry here took four references and gave them back, for every object read.
        func admit(_ size: Int, in pack: Int) throws(PackError) {
            cost += size
            guard size <= maximumSize, cost <= DeltaChains.costPerObjectLimit * maximumSize else {
                throw PackError(.tooLarge, path: packs[pack].path, "\(id.hex) takes \(size) bytes to read (\(cost) along its deltas), over the limit of \(maximumSize)")
            }
        }
        while true {
            // A key per entry (no pack is 2^48 bytes long; an offset past one is refused).
            guard location.offset < 1 << 48 else { throw .damaged(packs[location.pack].path, "an entry lies at \(location.offset)") }
            let key = location.pack << 48 | location.offset
            if let made = cache[key] {
                try admit(made.bytes.count, in: location.pack)
                object = made
                break
            }
            let entry: EntryAtOffset
            do {
                entry = try EntryAtOffset(at: location.offset, in: packs[location.pack].bytes.bytes)
            } catch {
                throw PackError(error.code, path: packs[location.pack].path, "at \(location.offset): \(error.message)")
            }
            try admit(entry.header.size, in: location.pack)
            if let kind = entry.header.type.kind {
                object = PackReader.Object(kind: kind, bytes: try inflate(entry, in: location.pack, inflater: inflater))
                if !deltas.isEmpty { cache[key] = object }
                break
            }
            deltas.append((location.pack, entry, key))
            // Offset deltas only point back; reference deltas could make a loop.
            guard deltas.count <= DeltaChains.maximumDepth else {
                throw .damaged(packs[location.pack].path, "\(id.hex) is stored as more than \(DeltaChains.maximumDepth) deltas")
            }
            switch entry.base {
            case .offset(let base)?: location = (location.pack, base)
            case .id(let base)?:
                guard let found = indexes.location(of: base) else { return nil }
                location = found
            case nil: throw .damaged(packs[location.pack].path, "the entry at \(location.offset) is neither an object nor a delta")
            }
        }
        for (pack, entry, key) in deltas.reversed() {
            let delta = try inflate(entry, in: pack, inflater: inflater)
            object.bytes = try delta.withBytes { (delta) throws(PackError) in
                try object.bytes.withBytes { (base) throws(PackError) in try Delta.apply(delta, to: base, maximumSize: maximumSize) }
            }
            try admit(object.bytes.count, in: pack)
            cache[key] = object
        }
        return object
    }

    /// How many times the pages read were given back (for tests).
    package var releases: Int { reading.withLock { $0.releases } }

    private func inflate(_ entry: EntryAtOffset, in pack: Int, inflater: Inflater) throws(PackError) -> [UInt8] {
        let packed = packs[pack].bytes.bytes
        let (bytes, consumed): ([UInt8], Int)
        do {
            (bytes, consumed) = try inflater.inflate(UnsafeRawBufferPointer(rebasing: packed[entry.data..<packed.count - 20]), size: entry.header.size)
        } catch {
            throw PackError(error.code, path: packs[pack].path, "at \(entry.data): \(error.message)")
        }
        guard let residentBudget else { return bytes }
        // A read may touch a page more than its bytes: one of 200 bytes, a page of 4 KB.
        let release = reading.withLock { reading in
            reading.bytes += consumed + 4096
            guard reading.bytes > residentBudget else { return false }
            reading = (0, reading.releases + 1)
            return true
        }
        // Other threads may be reading these pages: they map them again from the file. The
        // indexes' pages too: each lookup touches a dozen of them.
        if release {
            for pack in packs { pack.bytes.releasePages() }
            for index in indexes { index.releasePages() }
        }
        return bytes
    }
}
