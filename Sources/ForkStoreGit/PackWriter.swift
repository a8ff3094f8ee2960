internal import CLibGit2
internal import Crypto
import Foundation

/// Streams a new pack into libgit2's indexer, which checks every object and writes the pack
/// and its index under `objects/pack` when ``finish()`` commits it. Entries are either copied
/// from other packs as they are (``copy(pack:index:skippingAndRecording:)``, the roll-up) or
/// written here, compressed, whole or as a delta against an earlier entry (``append(_:kind:)``,
/// ``append(delta:against:)``).
final class PackWriter {
    private let indexer: OpaquePointer?
    private var hasher = Insecure.SHA1()
    private var buffer: [UInt8] = []
    /// Where the next entry starts in the pack.
    private(set) var position = 0
    private var stats = git_indexer_progress()
    private var compressed: [UInt8] = []

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

    private func flushWhenFull() throws(GitError) {
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func send(_ bytes: [UInt8]) throws(GitError) {
        try check("git_indexer_append") {
            bytes.withUnsafeBytes { git_indexer_append(indexer, $0.baseAddress, $0.count, &stats) }
        }
    }

    /// An entry's header: the type in bits 4–6 of its first byte, the size of the inflated
    /// data in its low four bits and then 7-bit groups, least significant first.
    private func writeHeader(type: UInt8, size: Int) {
        var byte = type << 4 | UInt8(size & 0x0F)
        var rest = size >> 4
        while rest != 0 {
            write(CollectionOfOne(byte | 0x80))
            byte = UInt8(rest & 0x7F)
            rest >>= 7
        }
        write(CollectionOfOne(byte))
    }

    /// Writes `bytes` zlib-compressed, as every pack entry's data is.
    private func writeCompressed(_ bytes: UnsafeRawBufferPointer) throws(GitError) {
        var length = compressBound(uLong(bytes.count))
        if compressed.count < Int(length) { compressed = [UInt8](repeating: 0, count: Int(length)) }
        let status = compressed.withUnsafeMutableBytes { target in
            compress2(
                target.baseAddress?.assumingMemoryBound(to: Bytef.self), &length,
                bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(bytes.count), Z_DEFAULT_COMPRESSION)
        }
        guard status == Z_OK else {
            throw GitError(function: "compress2", rawCode: status, errorClass: 0, message: "zlib could not compress an object")
        }
        write(compressed[..<Int(length)])
    }

    /// Appends a whole object of `kind` (git's object type: 1 commit, 2 tree, 3 blob, 4 tag);
    /// returns where its entry starts.
    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer, kind: UInt8) throws(GitError) -> Int {
        let here = position
        writeHeader(type: kind, size: bytes.count)
        try writeCompressed(bytes)
        try flushWhenFull()
        return here
    }

    /// Appends an offset delta (``GitDelta``) against the entry that starts at `base`, earlier in
    /// this pack; returns where its entry starts.
    @discardableResult
    func append(delta: [UInt8], against base: Int) throws(GitError) -> Int {
        let here = position
        writeHeader(type: 6, size: delta.count)
        write(Self.encoded(distance: here - base))
        var failure: GitError?
        delta.withUnsafeBytes { bytes in
            do throws(GitError) { try writeCompressed(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
        try flushWhenFull()
        return here
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
            try flushWhenFull()
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
