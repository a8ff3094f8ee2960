import Foundation

/// One pack file of an object database (`objects/pack/pack-<hash>.pack` with its index).
package struct PackFile: Sendable, Equatable {
    /// The path without extension: `…/objects/pack/pack-<hash>`.
    package var base: String
    /// How many objects it holds (from its index).
    package var objectCount: Int
    /// Whether a `.keep` file protects it from repacking.
    package var isKept: Bool

    package init(base: String, objectCount: Int, isKept: Bool) {
        (self.base, self.objectCount, self.isKept) = (base, objectCount, isKept)
    }

    /// The packs in `folder` (an `objects/pack` folder) that have an index, smallest first.
    package static func packs(in folder: String) -> [PackFile] {
        let folder = folder.hasSuffix("/") ? folder : folder + "/"
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        return names.filter { $0.hasPrefix("pack-") && $0.hasSuffix(".idx") }.compactMap { name in
            let stem = String(name.dropLast(4))
            guard names.contains(stem + ".pack"), let count = PackIndex.objectCount(at: folder + name) else { return nil }
            return PackFile(base: folder + stem, objectCount: count, isKept: names.contains(stem + ".keep"))
        }.sorted { $0.objectCount < $1.objectCount }
    }

    /// The order in which `ids` lie in `packs`: by pack, then by where each starts in its pack;
    /// objects in none of them (loose, or missing) come last, in the order given. Returns
    /// positions into `ids`.
    ///
    /// Reading many objects in this order reads each pack front to back: a reader that maps a
    /// pack through a few small windows (libgit2, as ForkStore sets it up) would otherwise map
    /// and unmap again for almost every object, and a delta's base is still in its cache when
    /// the delta is read.
    package static func storageOrder(of ids: [ObjectID], in packs: [PackFile]) -> [Int] {
        let indexes = packs.compactMap { try? PackIndex(path: $0.base + ".idx") }
        var keys = [(pack: Int, offset: Int)](repeating: (Int.max, 0), count: ids.count)
        for (position, id) in ids.enumerated() {
            if let location = indexes.location(of: id) { keys[position] = location }
        }
        return ids.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
    }
}
