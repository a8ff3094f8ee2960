internal import CLibGit2
import Foundation

/// One pack file of the object database.
package struct PackFile: Sendable, Equatable {
    /// The path without extension: `…/objects/pack/pack-<hash>`.
    package var base: String
    /// How many objects it holds (from its index).
    package var objectCount: Int
    /// Whether a `.keep` file protects it from repacking.
    package var isKept: Bool
}

extension Repository {
    /// The packs in `objects/pack` that have an index, smallest first.
    package func packs() -> [PackFile] {
        let folder = gitDirectory + "objects/pack/"
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        return names.filter { $0.hasPrefix("pack-") && $0.hasSuffix(".idx") }.compactMap { name in
            let stem = String(name.dropLast(4))
            guard names.contains(stem + ".pack"), let count = PackIndex.objectCount(at: folder + name) else { return nil }
            return PackFile(base: folder + stem, objectCount: count, isKept: names.contains(stem + ".keep"))
        }.sorted { $0.objectCount < $1.objectCount }
    }

    /// How many packs a repository may hold before small ones are rolled into one.
    package static let packsBeforeRollUp = 16

    /// The packs to roll into one so that, smallest first, each remaining pack holds at least
    /// twice as many objects as all smaller ones together (`git repack --geometric=2`): small
    /// packs (every fetch and push adds one) merge often and cheaply, large ones rarely.
    package static func packsToRollUp(_ packs: [PackFile]) -> [PackFile] {
        let candidates = packs.filter { !$0.isKept }
        var total = 0, split = 0
        for (index, pack) in candidates.enumerated() {
            if index > 0, pack.objectCount < 2 * total { split = index + 1 }
            total += pack.objectCount
        }
        return split >= 2 ? Array(candidates.prefix(split)) : []
    }

    /// Writes the objects of `packs` into one new pack and removes them; returns how many
    /// objects the new pack holds.
    ///
    /// The packs' entries are copied as they are, compressed data and deltas included, so no
    /// object is inflated and searched for deltas again (libgit2's packbuilder would do both,
    /// and lose the deltas it found by path): only the distances of offset deltas are
    /// rewritten, and an object found in an earlier pack is left out. Each entry is checked
    /// against the CRC-32 its index holds, so a damaged pack is refused, not copied. Readers
    /// keep working: every object is in the new pack before an old one goes, and a killed
    /// roll-up leaves only temporary files (``removeLeftoverTemporaryFiles()``) beside the packs
    /// it did not remove.
    @discardableResult
    package func rollUp(_ packs: [PackFile]) throws(GitError) -> Int {
        guard packs.count >= 2 else { return 0 }
        var indexes: [PackIndex] = []
        var unique = Set<ObjectID>()
        for pack in packs {
            let index = try PackIndex(path: pack.base + ".idx")
            indexes.append(index)
            for entry in index.entries { unique.insert(entry.id) }
        }
        let writer = try PackWriter(directory: gitDirectory + "objects/pack", objectCount: unique.count)
        unique = []
        var written: [ObjectID: Int] = [:]
        for (pack, index) in zip(packs, indexes) {
            try writer.copy(pack: pack.base + ".pack", index: index, skippingAndRecording: &written)
        }
        let name = try writer.finish()
        for pack in packs where !pack.base.hasSuffix("pack-" + name) {
            for suffix in [".idx", ".pack", ".rev", ".bitmap"] { try? FileManager.default.removeItem(atPath: pack.base + suffix) }
        }
        try refreshObjects()
        return written.count
    }
}

/// A version-2 pack index: each object's id, where its entry starts in the pack and the CRC-32
/// of the entry's bytes, in pack order.
struct PackIndex {
    var entries: [(id: ObjectID, offset: Int, crc: UInt32)]

    /// The object count of a version-2 pack index: the last entry of its fan-out table.
    static func objectCount(at path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 8 + 256 * 4), header.count == 8 + 256 * 4,
            Array(header.prefix(8)) == [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        else { return nil }
        return header.suffix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    init(path: String) throws(GitError) {
        guard let count = Self.objectCount(at: path),
            let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        else { throw Self.damaged(path, "not a version-2 pack index") }
        let ids = 8 + 256 * 4, offsets = ids + count * 24, large = offsets + count * 4
        guard data.count >= large + 40 else { throw Self.damaged(path, "shorter than its \(count) entries") }
        func integer(at position: Int, bytes: Int) -> Int {
            data[data.startIndex + position..<data.startIndex + position + bytes].reduce(0) { $0 << 8 | Int($1) }
        }
        var entries: [(id: ObjectID, offset: Int, crc: UInt32)] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            var oid = git_oid()
            withUnsafeMutableBytes(of: &oid.id) { target in
                data.copyBytes(to: target.bindMemory(to: UInt8.self), from: data.startIndex + ids + index * 20..<data.startIndex + ids + index * 20 + 20)
            }
            var offset = integer(at: offsets + index * 4, bytes: 4)
            if offset & 0x8000_0000 != 0 {
                let position = large + (offset & 0x7FFF_FFFF) * 8
                guard position + 8 <= data.count - 40 else { throw Self.damaged(path, "a large offset points outside it") }
                offset = integer(at: position, bytes: 8)
            }
            entries.append((ObjectID(oid), offset, UInt32(integer(at: ids + count * 20 + index * 4, bytes: 4))))
        }
        self.entries = entries.sorted { $0.offset < $1.offset }
    }

    static func damaged(_ path: String, _ reason: String) -> GitError {
        GitError(function: "pack roll-up", rawCode: -1, errorClass: 0, message: "\(path): \(reason)")
    }
}
