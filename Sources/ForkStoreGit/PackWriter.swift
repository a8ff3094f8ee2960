internal import CLibGit2
internal import Crypto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a new pack: into `objects/pack` with its index, or as a stream (a push). Entries
/// are either copied from other packs as they are (``copy(pack:index:skippingAndRecording:)``,
/// the roll-up) or written here, compressed, whole or as a delta against an earlier entry
/// (``append(_:)``).
///
/// Every entry comes from this library: its id is known (computed from the object, or read
/// from the index of the pack it is copied from) and is not computed again. libgit2's indexer
/// would inflate every entry, apply every delta and hash every object a second time, a fifth
/// of a 100-record commit's time. What comes from a remote still goes through the indexer.
///
/// Readers never see a partial pack: the pack and its index are written under temporary
/// names and renamed when complete, the index last (a pack is used only once its index is
/// there), after an fsync of both when ``Libgit2/enableFsync()`` asked for one. A killed
/// writer leaves only temporary files (``Repository/removeLeftoverTemporaryFiles()``).
final class PackWriter {
    /// The prefix of the temporary files a writer works in.
    static let temporaryPrefix = "tmp_forkstore_pack_"

    /// Where the pack goes.
    private enum Destination {
        /// A temporary file in `directory` (`objects/pack`), moved into place with its index.
        case folder(directory: String, temporaryPath: String, file: FileHandle)
        /// Bytes handed on as they are written, a megabyte at a time.
        case stream((UnsafeRawBufferPointer) throws(GitError) -> Void)
    }

    private let destination: Destination
    /// How many objects the header says the pack holds.
    private let declaredCount: Int
    private var hasher = Insecure.SHA1()
    private var buffer: [UInt8] = []
    /// Where the next entry starts in the pack.
    private(set) var position = 0
    /// Each entry's object id, where it starts and the CRC-32 of its bytes, for the index.
    private var entries: [(id: ObjectID, offset: Int, crc: UInt32)] = []
    private var isFinished = false

    /// A pack of `objectCount` objects for the object database whose packs are in `directory`.
    convenience init(directory: String, objectCount: Int) throws(GitError) {
        let temporaryPath = directory + "/" + Self.temporaryPrefix + UUID().uuidString
        let file = try Self.create(temporaryPath)
        self.init(.folder(directory: directory, temporaryPath: temporaryPath, file: file), objectCount: objectCount)
    }

    /// A pack of `objectCount` objects streamed to `sink`.
    convenience init(objectCount: Int, streamingTo sink: @escaping (UnsafeRawBufferPointer) throws(GitError) -> Void) {
        self.init(.stream(sink), objectCount: objectCount)
    }

    private init(_ destination: Destination, objectCount: Int) {
        self.destination = destination
        declaredCount = objectCount
        entries.reserveCapacity(objectCount)
        buffer.reserveCapacity(1 << 20)
        write([0x50, 0x41, 0x43, 0x4B, 0, 0, 0, 2])  // "PACK", version 2
        write(Self.bigEndian(UInt32(clamping: objectCount)))  // a pack holds at most 2^32 - 1
    }

    deinit {
        guard case .folder(_, let temporaryPath, let file) = destination else { return }
        try? file.close()
        if !isFinished { try? FileManager.default.removeItem(atPath: temporaryPath) }
    }

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
        switch destination {
        case .folder(_, let temporaryPath, let file):
            do { try file.write(contentsOf: bytes) } catch { throw Self.failure("writing \(temporaryPath): \(error)") }
        case .stream(let sink):
            try bytes.withUnsafeBytes { bytes in Result { () throws(GitError) in try sink(bytes) } }.get()
        }
    }

    /// Ends the entry that started at `start` (in the pack): records it for the index, and
    /// writes the buffer out once it is large. Entries end at buffer boundaries, so each
    /// entry's bytes are all in the buffer here.
    private func finishEntry(id: ObjectID, startingAt start: Int) throws(GitError) {
        let first = buffer.count - (position - start)
        entries.append((id, start, buffer[first...].withUnsafeBytes(Self.crc)))
        if buffer.count >= 1 << 20 { try flush() }
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

    /// How many entries the pack holds so far: the number the next entry gets.
    var entryCount: Int { entries.count }

    /// Appends `batch` in order, compressed on every core first (one zlib stream per slice).
    func append(_ batch: [PackEntry]) throws(GitError) {
        let slices = max(1, min(batch.count / 8, ProcessInfo.processInfo.activeProcessorCount))
        let compressed = Mutex([[UInt8]](repeating: [], count: batch.count))
        let failure = Mutex<GitError?>(nil)
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            do throws(GitError) {
                let fast = try Deflater(level: Z_BEST_SPEED), standard = try Deflater(level: Z_DEFAULT_COMPRESSION)
                var output: [UInt8] = []
                for number in stride(from: slice, to: batch.count, by: slices) {
                    let entry = batch[number]
                    // Trees (hashes, which do not compress) at zlib's fastest level, as git
                    // writes loose objects; the rest at its default level.
                    let length = try entry.payload.withUnsafeBytes { bytes in
                        Result { () throws(GitError) in try (entry.kind == 2 ? fast : standard).compress(bytes, into: &output) }
                    }.get()
                    let result = Array(output[..<length])
                    compressed.withLock { $0[number] = result }
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let data = compressed.withLock { $0 }
        for (entry, bytes) in zip(batch, data) {
            let here = position
            writeHeader(type: entry.base == nil ? entry.kind : 6, size: entry.payload.count)
            if let base = entry.base {
                guard base < entries.count else {
                    throw GitError(function: "pack writer", rawCode: -1, errorClass: 0, message: "a delta's base is not an earlier entry")
                }
                write(Self.encoded(distance: here - entries[base].offset))
            }
            write(bytes)
            try finishEntry(id: entry.id, startingAt: here)
        }
    }

    /// Copies the entries of one pack, leaving out objects already in `written` (the new
    /// offset of every object written so far) and recording the ones it writes. Each entry's
    /// bytes are checked against the CRC-32 its index holds, so a damaged pack is refused
    /// rather than copied.
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
            guard data[start + entry.offset..<start + next].withUnsafeBytes(Self.crc) == entry.crc else { throw PackIndex.damaged(path, "object \(entry.id.hex) does not match its checksum") }
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
            try finishEntry(id: entry.id, startingAt: here)
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

    /// Appends the checksum and returns the pack's name (its checksum in hex). In a folder, it
    /// also writes the index and moves both into place; a pack with the same name already there
    /// (the same objects in the same order) is kept as it is.
    func finish() throws(GitError) -> String {
        // The header promised a count, and readers refuse a pack whose index disagrees.
        guard entries.count == declaredCount else {
            throw Self.failure("the pack holds \(entries.count) objects, not the \(declaredCount) its header says")
        }
        try flush()
        let checksum = Array(hasher.finalize())
        try send(checksum)
        let name = checksum.map { String(format: "%02x", $0) }.joined()
        guard case .folder(let directory, let temporaryPath, let file) = destination else { return name }
        if Libgit2.isFsyncEnabled {
            do { try file.synchronize() } catch { throw Self.failure("syncing \(temporaryPath): \(error)") }
        }
        try? file.close()
        let indexPath = temporaryPath + ".idx"
        defer { try? FileManager.default.removeItem(atPath: indexPath) }
        let index = try Self.index(of: entries, checksum: checksum)
        let indexFile = try Self.create(indexPath)
        do {
            try indexFile.write(contentsOf: index)
            if Libgit2.isFsyncEnabled { try indexFile.synchronize() }
            try indexFile.close()
        } catch {
            throw Self.failure("writing \(indexPath): \(error)")
        }
        let final = directory + "/pack-" + name
        if FileManager.default.fileExists(atPath: final + ".idx") { return name }  // the temporary pack goes with this writer
        guard rename(temporaryPath, final + ".pack") == 0 else { throw Self.failure("renaming \(temporaryPath): \(String(cString: strerror(errno)))") }
        isFinished = true
        guard rename(indexPath, final + ".idx") == 0 else { throw Self.failure("renaming \(indexPath): \(String(cString: strerror(errno)))") }
        if Libgit2.isFsyncEnabled { try Self.synchronize(directory) }
        return name
    }

    /// A version-2 pack index of `entries`: the fan-out table, the ids in order, their CRC-32s,
    /// their offsets (those past 2 GB in a table of 8-byte offsets), the pack's checksum and the
    /// index's own.
    private static func index(of entries: [(id: ObjectID, offset: Int, crc: UInt32)], checksum: [UInt8]) throws(GitError) -> [UInt8] {
        let sorted = entries.sorted { $0.id < $1.id }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier.id == later.id {
            throw failure("object \(later.id.hex) is in the pack twice")
        }
        var index: [UInt8] = [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        index.reserveCapacity(8 + 1024 + sorted.count * 28 + 40)
        var counts = [Int](repeating: 0, count: 256)
        for entry in sorted { counts[Int(entry.id.firstByte)] += 1 }
        var total = 0
        for count in counts {
            total += count
            index += bigEndian(UInt32(total))
        }
        for entry in sorted { withUnsafeBytes(of: entry.id.raw.id) { index += $0 } }
        for entry in sorted { index += bigEndian(entry.crc) }
        var large: [UInt8] = []
        for entry in sorted {
            if entry.offset < 0x8000_0000 {
                index += bigEndian(UInt32(entry.offset))
            } else {
                index += bigEndian(0x8000_0000 | UInt32(large.count / 8))
                large += bigEndian(UInt32(entry.offset >> 32)) + bigEndian(UInt32(entry.offset & 0xFFFF_FFFF))
            }
        }
        index += large
        index += checksum
        index += Array(Insecure.SHA1.hash(data: index))
        return index
    }

    /// The CRC-32 of an entry's bytes, as a pack index keeps it.
    private static func crc(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(crc32(0, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A new file at `path`, opened for writing. Made with `open(2)`, not Foundation's
    /// `createFile`, which writes through a temporary file of its own (`.dat.nosync…`) that a
    /// killed writer would leave where no clean-up knows its name.
    private static func create(_ path: String) throws(GitError) -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
        guard descriptor >= 0 else { throw failure("creating \(path): \(String(cString: strerror(errno)))") }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// fsyncs a file or folder.
    static func synchronize(_ path: String) throws(GitError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("opening \(path) to sync it: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("syncing \(path): \(String(cString: strerror(errno)))") }
    }

    private static func failure(_ reason: String) -> GitError {
        GitError(function: "pack writer", rawCode: -1, errorClass: Int32(GIT_ERROR_OS.rawValue), message: reason)
    }
}

/// One zlib deflate stream, reset between inputs: `compress2` sets up (and allocates, about
/// 256 KB) a new stream for every object, which cost more than compressing a small one.
final class Deflater {
    private var stream = z_stream()

    init(level: Int32) throws(GitError) {
        let status = deflateInit_(&stream, level, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw GitError(function: "deflateInit", rawCode: status, errorClass: 0, message: "zlib could not start a stream")
        }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `bytes` as one zlib stream into `output` (grown as needed); returns its length.
    func compress(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(GitError) -> Int {
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        deflateReset(&stream)
        let status = output.withUnsafeMutableBytes { target -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(bytes.count)
            stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(target.count)
            return deflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else {
            throw GitError(function: "deflate", rawCode: status, errorClass: 0, message: "zlib could not compress an object")
        }
        return Int(stream.total_out)
    }
}

/// One entry for ``PackWriter/append(_:)``: an object whole, or as an offset delta
/// (``GitDelta``) against an earlier entry of the same pack, by its number.
struct PackEntry {
    var id: ObjectID
    /// git's object type (1 commit, 2 tree, 3 blob, 4 tag), for a whole object.
    var kind: UInt8
    /// The object's data, or the delta.
    var payload: [UInt8]
    var base: Int?

    init(id: ObjectID, kind: UInt8, payload: [UInt8]) {
        (self.id, self.kind, self.payload, base) = (id, kind, payload, nil)
    }

    init(id: ObjectID, delta: [UInt8], against base: Int) {
        (self.id, kind, payload, self.base) = (id, 6, delta, base)
    }
}
