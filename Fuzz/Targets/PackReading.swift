import ForkStoreGit
import Foundation
import Synchronization

extension FuzzTarget {
    /// A whole pack read back with its index (``PackReader/forEachObject(of:_:)``, how a fetch's
    /// blobs are checked ahead of its walk): a pack of objects the input makes (each piece a
    /// blob, whole or as a delta against the one before) written by ``PackWriter``, then one of
    /// its bytes flipped where the input says, read for every kind, for blobs or for trees (whose
    /// kinds come from the entries' headers alone). Either the reading fails, or it gives each
    /// object once: every one written, for every kind; only written ones, for blobs; none, for
    /// trees. Each object is also read by id (``MappedPacks``), before the flip as written (also
    /// newest first through a small ``ObjectCache``), after it within the limit.
    static let packReader = FuzzTarget(name: "pack-reader") { bytes in
        guard bytes.count >= 4 else { return }
        let flip = Int(bytes[0]) << 8 | Int(bytes[1]), mask = bytes[2] | 1
        let kind = [nil, ObjectKind.blob, .tree][Int(bytes[2] >> 1) % 3]
        var objects: [[UInt8]] = []
        var entries: [PackEntry] = []
        for piece in bytes.dropFirst(3).split(separator: 0xFF, maxSplits: 7, omittingEmptySubsequences: false) {
            let object = Array(piece)
            let id = object.withUnsafeBytes { ObjectID.hash(of: $0, kind: .blob) }
            guard !objects.contains(object) else { continue }
            if let last = objects.last, object.count % 2 == 0,
                let delta = last.withUnsafeBytes({ base in object.withUnsafeBytes { Delta.bytes(from: base, to: $0) } })
            {
                entries.append(PackEntry(id: id, delta: delta, against: entries.count - 1))
            } else {
                entries.append(PackEntry(id: id, kind: .blob, payload: object))
            }
            objects.append(object)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-pack-\(getpid())").path
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard let writer = try? PackWriter(directory: folder, objectCount: entries.count, fsync: false),
            (try? writer.append(entries)) != nil, let name = try? writer.finish()
        else { return check(false, "a pack of \(entries.count) objects was not written") }
        let base = folder + "/pack-" + name
        // Read by id (``MappedPacks``, how a listing reads): every object as it was written.
        let packFile = PackFile(base: base, objectCount: entries.count, isKept: false)
        if let inflater = try? Inflater() {
            let mapped = MappedPacks([packFile])
            for (entry, object) in zip(entries, objects) {
                let read = try? mapped.object(entry.id, maximumSize: 1 << 20, inflater: inflater)
                check(read?.kind == .blob && read?.bytes == object, "\(entry.id.hex) read by id otherwise")
            }
            // Newest first through a small cache, as a fetch's walk reads trees: the same.
            var cache = ObjectCache(budget: 2_048)
            for (entry, object) in zip(entries, objects).reversed() {
                let read = try? mapped.object(entry.id, maximumSize: 1 << 20, inflater: inflater, cache: &cache)
                check(read?.kind == .blob && read?.bytes == object, "\(entry.id.hex) read through the cache otherwise")
            }
        }
        guard var pack = FileManager.default.contents(atPath: base + ".pack") else { return }
        pack[flip % pack.count] ^= mask
        guard FileManager.default.createFile(atPath: base + ".pack", contents: pack) else { return }
        // From the damaged pack, by id: a failure, nothing, or an object within the limit (no
        // hash is checked there, as libgit2's reads check none).
        if let inflater = try? Inflater() {
            let mapped = MappedPacks([packFile])
            var cache = ObjectCache(budget: 2_048)
            for entry in entries {
                guard let read = try? mapped.object(entry.id, maximumSize: 1 << 20, inflater: inflater) else { continue }
                check(read.bytes.count <= 1 << 20, "\(read.bytes.count) bytes read by id, over the limit")
                let cached = try? mapped.object(entry.id, maximumSize: 1 << 20, inflater: inflater, cache: &cache)
                check(cached == nil || cached?.bytes == read.bytes, "\(entry.id.hex) read through the cache otherwise")
            }
        }

        let read = Mutex<[ObjectID: [UInt8]]>([:])
        let counted = Mutex(0)
        do {
            let index = try PackIndex(path: base + ".idx")
            try PackReader(pack: base + ".pack", index: index, maximumObjectSize: 1 << 20).forEachObject(of: kind) { id, object in
                counted.withLock { $0 += 1 }
                read.withLock { $0[id] = object.bytes }
            }
        } catch {
            return
        }
        let written = Dictionary(uniqueKeysWithValues: zip(entries.map(\.id), objects))
        let (objectsRead, count) = (read.withLock { $0 }, counted.withLock { $0 })
        check(count == objectsRead.count, "\(count) objects given for \(objectsRead.count) ids")
        switch kind {
        case nil:
            check(objectsRead == written, "objects read back otherwise, flipping byte \(flip % pack.count)")
        case .blob?:
            // A flipped type in a header makes its entry another kind's, skipped unread.
            check(objectsRead.allSatisfy { written[$0.key] == $0.value }, "blobs read back otherwise, flipping byte \(flip % pack.count)")
        default:
            check(objectsRead.isEmpty, "\(objectsRead.count) trees read from a pack of blobs, flipping byte \(flip % pack.count)")
        }
    }
}
