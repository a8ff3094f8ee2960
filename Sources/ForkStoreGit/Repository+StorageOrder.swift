import Foundation

extension Repository {
    /// The order in which `ids` lie in the object database: by pack, then by where each starts
    /// in its pack; objects not in a pack (loose, or missing) come last, in the order given.
    /// Returns positions into `ids`.
    ///
    /// Reading many objects in this order reads each pack front to back: libgit2 maps a pack
    /// through a few small windows (``Libgit2``), which reads in tree order (by hash) would map
    /// and unmap again for almost every object, and a delta's base is still in its cache when
    /// the delta is read.
    package func storageOrder(of ids: [ObjectID]) -> [Int] {
        let indexes = packs().compactMap { try? PackIndexTable(path: $0.base + ".idx") }
        var keys = [(pack: Int, offset: Int)](repeating: (Int.max, 0), count: ids.count)
        for (position, id) in ids.enumerated() {
            for (number, index) in indexes.enumerated() {
                if let offset = index.offset(of: id) {
                    keys[position] = (number, offset)
                    break
                }
            }
        }
        return ids.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
    }
}

/// The lookup tables of a version-2 pack index, read where they lie in the file (mapped, not
/// copied): the fan-out table, the sorted object ids and their offsets in the pack.
struct PackIndexTable {
    private let data: Data
    private let count: Int

    init(path: String) throws(GitError) {
        guard let count = PackIndex.objectCount(at: path),
            let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
            data.count >= Self.idsStart + count * 28 + 40
        else { throw PackIndex.damaged(path, "not a version-2 pack index") }
        self.data = data
        self.count = count
    }

    private static let idsStart = 8 + 256 * 4

    /// Where `id` starts in the pack, or nil when the pack does not hold it.
    func offset(of id: ObjectID) -> Int? {
        withUnsafeBytes(of: id.raw.id) { wanted -> Int? in
            data.withUnsafeBytes { table -> Int? in
                guard let ids = table.baseAddress.map({ $0 + Self.idsStart }), let wanted = wanted.baseAddress else { return nil }
                func integer(at position: Int) -> Int {
                    (0..<4).reduce(0) { $0 << 8 | Int(table[position + $1]) }
                }
                let first = Int(wanted.load(as: UInt8.self))
                var low = first == 0 ? 0 : integer(at: 8 + (first - 1) * 4)
                var high = integer(at: 8 + first * 4)
                guard low <= high, high <= count else { return nil }
                while low < high {
                    let middle = (low + high) / 2
                    let order = memcmp(ids + middle * 20, wanted, 20)
                    if order == 0 {
                        let offset = integer(at: Self.idsStart + count * 24 + middle * 4)
                        // Offsets past 2 GB sit in a table of their own; such packs are read in order anyway.
                        return offset & 0x8000_0000 == 0 ? offset : Int.max - 1
                    }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return nil
            }
        }
    }
}
