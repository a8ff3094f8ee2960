internal import CLibGit2
internal import Crypto
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
    /// rewritten, and an object found in an earlier pack is left out. libgit2's indexer checks
    /// the result and writes its index while it streams. Readers keep working: every object is
    /// in the new pack before an old one goes, and a killed roll-up leaves only temporary files
    /// (``removeLeftoverTemporaryFiles()``) beside the packs it did not remove.
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
        let writer = try PackWriter(directory: gitDirectory + "objects/pack", odb: odb, objectCount: unique.count)
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

/// A version-2 pack index: each object's id and where its entry starts in the pack, in pack
/// order.
struct PackIndex {
    var entries: [(id: ObjectID, offset: Int)]

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
        var entries: [(id: ObjectID, offset: Int)] = []
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
            entries.append((ObjectID(oid), offset))
        }
        self.entries = entries.sorted { $0.offset < $1.offset }
    }

    static func damaged(_ path: String, _ reason: String) -> GitError {
        GitError(function: "pack roll-up", rawCode: -1, errorClass: 0, message: "\(path): \(reason)")
    }
}

/// Streams a new pack into libgit2's indexer, which checks every object and writes the pack
/// and its index under `objects/pack` when ``finish()`` commits it.
private final class PackWriter {
    private let indexer: OpaquePointer?
    private var hasher = Insecure.SHA1()
    private var buffer: [UInt8] = []
    private var position = 0
    private var stats = git_indexer_progress()

    init(directory: String, odb: OpaquePointer?, objectCount: Int) throws(GitError) {
        var options = git_indexer_options()
        try check("git_indexer_options_init") { git_indexer_options_init(&options, UInt32(GIT_INDEXER_OPTIONS_VERSION)) }
        var indexer: OpaquePointer?
        try check("git_indexer_new") { git_indexer_new(&indexer, directory, 0, odb, &options) }
        self.indexer = indexer
        buffer.reserveCapacity(1 << 20)
        let count = UInt32(clamping: objectCount)
        write([0x50, 0x41, 0x43, 0x4B, 0, 0, 0, 2])  // "PACK", version 2
        write([UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
    }

    deinit { git_indexer_free(indexer) }

    private func write<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        buffer.append(contentsOf: bytes)
        position += bytes.count
    }

    private func flush() throws(GitError) {
        guard !buffer.isEmpty else { return }
        hasher.update(data: buffer)
        try send(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func send(_ bytes: [UInt8]) throws(GitError) {
        try check("git_indexer_append") {
            bytes.withUnsafeBytes { git_indexer_append(indexer, $0.baseAddress, $0.count, &stats) }
        }
    }

    /// Copies the entries of one pack, leaving out objects already in `written` (the new
    /// offset of every object written so far) and recording the ones it writes.
    func copy(pack path: String, index: PackIndex, skippingAndRecording written: inout [ObjectID: Int]) throws(GitError) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
            data.count >= 32, data.prefix(8).elementsEqual([0x50, 0x41, 0x43, 0x4B, 0, 0, 0, 2])
        else { throw PackIndex.damaged(path, "not a version-2 pack") }
        let start = data.startIndex, end = data.count - 20
        // Where each entry of this pack went in the new one: an offset delta's base is an
        // entry before it in the same pack.
        var moved: [Int: Int] = [:]
        moved.reserveCapacity(index.entries.count)
        for (number, entry) in index.entries.enumerated() {
            let next = number + 1 < index.entries.count ? index.entries[number + 1].offset : end
            guard entry.offset >= 12, entry.offset < next, next <= end else {
                throw PackIndex.damaged(path, "its index places an entry outside it")
            }
            if let existing = written[entry.id] {
                moved[entry.offset] = existing
                continue
            }
            let here = position
            moved[entry.offset] = here
            written[entry.id] = here
            // The header: the type in bits 4–6 of its first byte, then the size in 7-bit groups.
            var cursor = entry.offset
            let type = (data[start + cursor] >> 4) & 7
            while data[start + cursor] & 0x80 != 0 {
                cursor += 1
                guard cursor < next else { throw PackIndex.damaged(path, "an entry header runs past its end") }
            }
            cursor += 1
            if type == 6 {  // an offset delta: the distance back to its base follows, rewritten
                write(data[start + entry.offset..<start + cursor])
                var byte = data[start + cursor]
                var distance = Int(byte & 0x7F)
                while byte & 0x80 != 0 {
                    cursor += 1
                    guard cursor < next, distance < 1 << 48 else { throw PackIndex.damaged(path, "a delta's base distance is malformed") }
                    byte = data[start + cursor]
                    distance = (distance + 1) << 7 | Int(byte & 0x7F)
                }
                cursor += 1
                guard let base = moved[entry.offset - distance] else {
                    throw PackIndex.damaged(path, "a delta's base is not an entry before it")
                }
                write(Self.encoded(distance: here - base))
            } else {
                cursor = entry.offset
            }
            write(data[start + cursor..<start + next])
            if buffer.count >= 1 << 20 { try flush() }
        }
    }

    /// An offset delta's distance as git writes it: 7 bits a byte, most significant first, each
    /// continued group counted from one.
    private static func encoded(distance: Int) -> [UInt8] {
        var bytes = [UInt8(distance & 0x7F)]
        var rest = distance >> 7
        while rest != 0 {
            rest -= 1
            bytes.insert(0x80 | UInt8(rest & 0x7F), at: 0)
            rest >>= 7
        }
        return bytes
    }

    /// Appends the checksum, has the indexer check the whole pack and write it with its index,
    /// and returns the new pack's name (its checksum in hex).
    func finish() throws(GitError) -> String {
        try flush()
        let digest = Array(hasher.finalize())
        try send(digest)
        try check("git_indexer_commit") { git_indexer_commit(indexer, &stats) }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
