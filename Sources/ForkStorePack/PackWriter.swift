internal import Crypto
import Foundation
import ForkStoreLocks
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
/// there), after an fsync of both when the writer was made with `fsync`. A killed
/// writer leaves only temporary files, named with ``temporaryPrefix``.
package final class PackWriter {
    /// A version-2 pack's first bytes: "PACK", then the version.
    static let signature: [UInt8] = [0x50, 0x41, 0x43, 0x4B, 0, 0, 0, 2]

    /// The prefix of the temporary files a writer works in.
    package static let temporaryPrefix = "tmp_forkstore_pack_"

    /// Where the pack goes.
    private enum Destination {
        /// A temporary file in `directory` (`objects/pack`), moved into place with its index.
        case folder(directory: String, temporaryPath: String, file: FileHandle)
        /// Bytes handed on as they are written, a megabyte at a time.
        case stream((UnsafeRawBufferPointer) throws(PackError) -> Void)
    }

    private let destination: Destination
    /// Whether the pack, its index and their folder are fsynced before the pack is used.
    private let fsync: Bool
    /// How many objects the header says the pack holds.
    private let declaredCount: Int
    private var hasher = Insecure.SHA1()
    private var buffer: [UInt8] = []
    /// Where the next entry starts in the pack.
    package private(set) var position = 0
    /// Each entry's object id, where it starts and the CRC-32 of its bytes, for the index.
    private var entries: [PackIndex.Entry] = []
    private var isFinished = false

    /// A pack of `objectCount` objects for the object database whose packs are in `directory`;
    /// with `fsync`, the pack, its index and the folder are synced before the pack is used.
    package convenience init(directory: String, objectCount: Int, fsync: Bool) throws(PackError) {
        let temporaryPath = directory + "/" + Self.temporaryPrefix + UUID().uuidString
        let file = try Self.create(temporaryPath)
        self.init(.folder(directory: directory, temporaryPath: temporaryPath, file: file), objectCount: objectCount, fsync: fsync)
    }

    /// A pack of `objectCount` objects streamed to `sink`.
    package convenience init(objectCount: Int, streamingTo sink: @escaping (UnsafeRawBufferPointer) throws(PackError) -> Void) {
        self.init(.stream(sink), objectCount: objectCount, fsync: false)
    }

    private init(_ destination: Destination, objectCount: Int, fsync: Bool) {
        self.destination = destination
        self.fsync = fsync
        declaredCount = objectCount
        entries.reserveCapacity(objectCount)
        buffer.reserveCapacity(1 << 20)
        write(Self.signature)
        write(PackIndex.bigEndian(UInt32(clamping: objectCount)))  // a pack holds at most 2^32 - 1
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

    private func flush() throws(PackError) {
        guard !buffer.isEmpty else { return }
        hasher.update(data: buffer)
        try send(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func send(_ bytes: [UInt8]) throws(PackError) {
        switch destination {
        case .folder(_, let temporaryPath, let file):
            do { try file.write(contentsOf: bytes) } catch { throw PackError(.system, path: temporaryPath, "cannot be written: \(error)") }
        case .stream(let sink):
            try bytes.withBytes(sink)
        }
    }

    /// Ends the entry that started at `start` (in the pack): records it for the index, and
    /// writes the buffer out once it is large. Entries end at buffer boundaries, so each
    /// entry's bytes are all in the buffer here.
    private func finishEntry(id: ObjectID, startingAt start: Int) throws(PackError) {
        let first = buffer.count - (position - start)
        entries.append(PackIndex.Entry(id: id, offset: start, crc: buffer[first...].withUnsafeBytes(crc32(of:))))
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// How many entries the pack holds so far: the number the next entry gets.
    package var entryCount: Int { entries.count }

    /// Appends `batch` in order, compressed on every core first (one zlib stream per slice).
    package func append(_ batch: [PackEntry]) throws(PackError) {
        let slices = max(1, min(batch.count / 8, ProcessInfo.processInfo.activeProcessorCount))
        let compressed = Locked([[UInt8]](repeating: [], count: batch.count))
        let failure = Locked<PackError?>(nil)
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            do throws(PackError) {
                let fast = try Deflater(level: .fastest), standard = try Deflater(level: .standard)
                var output: [UInt8] = []
                for number in stride(from: slice, to: batch.count, by: slices) {
                    let entry = batch[number]
                    // Trees (hashes, which do not compress) at zlib's fastest level, as git
                    // writes loose objects; the rest at its default level.
                    let length = try entry.payload.withBytes { (bytes) throws(PackError) in
                        try (entry.type == .tree ? fast : standard).compress(bytes, into: &output)
                    }
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
            write(EntryHeader(type: entry.type, size: entry.payload.count).encoded)
            if let base = entry.base {
                guard base < entries.count else { throw PackError(.invalidRequest, "a delta's base is not an earlier entry") }
                write(OffsetDistance.encode(here - entries[base].offset))
            }
            write(bytes)
            try finishEntry(id: entry.id, startingAt: here)
        }
    }

    /// A pack a roll-up has copied: its index, and where each of its objects went in the new
    /// pack, by the object's number in the index.
    package struct CopiedPack {
        package let index: PackIndex
        package let offsets: [Int]

        /// Where the object `id` went in the new pack, if this pack holds it and it was copied.
        func offset(of id: ObjectID) -> Int? {
            index.number(of: id).flatMap { offsets[$0] >= 0 ? offsets[$0] : nil }
        }
    }

    /// Copies the entries of the pack at `path` (described by `index`), leaving out objects
    /// that a pack copied before it (`earlier`) holds, and those `keeping` (by object number)
    /// does not keep, and returns where each of its objects is in the new pack. Each entry's bytes are checked against the CRC-32 its index holds, so
    /// a damaged pack is refused rather than copied; only the distances of offset deltas are
    /// rewritten.
    ///
    /// What it remembers is one offset per object (8 bytes); whether an object was copied
    /// before is looked up in the earlier packs' indexes, which are mapped files. (A dictionary
    /// of every object copied held 22 MB of a 1 GB import's 48 MB peak.)
    ///
    /// Those `whole` marks (by object number) are written as the objects `readWhole` reads,
    /// not copied: deltas whose base is left out.
    package func copy(
        pack path: String, index: PackIndex, after earlier: [CopiedPack], keeping: [Bool]? = nil,
        whole: [Bool]? = nil, readWhole: (ObjectID) -> PackReader.Object? = { _ in nil }
    ) throws(PackError) -> CopiedPack {
        let data = try MappedFile.map(path)
        guard data.count >= 32, data.prefix(8).elementsEqual(Self.signature) else {
            throw .damaged(path, "not a version-2 pack")
        }
        let entries = try index.entriesInPackOrder()
        var offsets = [Int](repeating: -1, count: index.count)
        /// The new offset of the entry of this pack starting at `offset`, once it is copied.
        func copied(startingAt offset: Int) -> Int? {
            guard let found = entries.position(startingAt: offset), let number = index.number(of: entries[found].id) else { return nil }
            return offsets[number] >= 0 ? offsets[number] : nil
        }
        try data.withBytes { (pack) throws(PackError) in
            let end = pack.count - 20
            var released = 0
            for (order, entry) in entries.enumerated() {
                let next = order + 1 < entries.count ? entries[order + 1].offset : end
                guard entry.offset >= 12, entry.offset < next, next <= end, let number = index.number(of: entry.id) else {
                    throw .damaged(path, "its index places an entry outside it")
                }
                // Only the bytes of this entry are read again (a delta's base is found by
                // offset), so the pages behind it leave the process's resident memory.
                if entry.offset - released >= 1 << 20 {
                    MappedFile.release(data, from: released, to: entry.offset)
                    released = entry.offset
                }
                if let keeping, !keeping[number] { continue }
                if let existing = earlier.lazy.compactMap({ $0.offset(of: entry.id) }).first {
                    offsets[number] = existing
                    continue
                }
                if let whole, whole[number] {
                    guard let object = readWhole(entry.id) else { throw .damaged(path, "object \(entry.id.hex) could not be read whole") }
                    offsets[number] = position
                    try append([PackEntry(id: entry.id, kind: object.kind, payload: object.bytes)])
                    continue
                }
                let bytes = UnsafeRawBufferPointer(rebasing: pack[entry.offset..<next])
                guard crc32(of: bytes) == entry.crc else { throw .damaged(path, "object \(entry.id.hex) does not match its checksum") }
                let here = position
                let (header, headerLength) = try EntryHeader.decode(bytes)
                if header.type == .offsetDelta {  // the distance back to its base follows, rewritten
                    let (distance, distanceLength) = try OffsetDistance.decode(UnsafeRawBufferPointer(rebasing: bytes[headerLength...]))
                    guard distance > 0, distance <= entry.offset, let base = copied(startingAt: entry.offset - distance) else {
                        throw .damaged(path, "a delta's base is not an entry before it")
                    }
                    write(bytes[..<headerLength])
                    write(OffsetDistance.encode(here - base))
                    write(bytes[(headerLength + distanceLength)...])
                } else {
                    write(bytes)
                }
                offsets[number] = here
                try finishEntry(id: entry.id, startingAt: here)
            }
        }
        return CopiedPack(index: index, offsets: offsets)
    }

    /// Appends the checksum and returns the pack's name (its checksum in hex). In a folder, it
    /// also writes the index and moves both into place; a pack with the same name already there
    /// (the same objects in the same order) is kept as it is.
    package func finish() throws(PackError) -> String {
        // The header promised a count, and readers refuse a pack whose index disagrees.
        guard entries.count == declaredCount else {
            throw PackError(.invalidRequest, "the pack holds \(entries.count) objects, not the \(declaredCount) its header says")
        }
        try flush()
        let checksum = Array(hasher.finalize())
        try send(checksum)
        let name = checksum.map { String(format: "%02x", $0) }.joined()
        guard case .folder(let directory, let temporaryPath, let file) = destination else { return name }
        if fsync {
            do { try file.synchronize() } catch { throw PackError(.system, path: temporaryPath, "cannot be synced: \(error)") }
        }
        try? file.close()
        let indexPath = temporaryPath + ".idx"
        defer { try? FileManager.default.removeItem(atPath: indexPath) }
        let index = try PackIndex.encode(&entries, packChecksum: checksum)
        entries = []  // a roll-up reads the pack back next: its memory is not needed for that
        let indexFile = try Self.create(indexPath)
        do {
            try indexFile.write(contentsOf: index)
            if fsync { try indexFile.synchronize() }
            try indexFile.close()
        } catch {
            throw PackError(.system, path: indexPath, "cannot be written: \(error)")
        }
        let final = directory + "/pack-" + name
        if FileManager.default.fileExists(atPath: final + ".idx") { return name }  // the temporary pack goes with this writer
        guard rename(temporaryPath, final + ".pack") == 0 else { throw Self.systemFailure("cannot be renamed", temporaryPath) }
        isFinished = true
        guard rename(indexPath, final + ".idx") == 0 else { throw Self.systemFailure("cannot be renamed", indexPath) }
        if fsync { try Self.synchronize(directory) }
        return name
    }

    /// A new file at `path`, opened for writing. Made with `open(2)`, not Foundation's
    /// `createFile`, which writes through a temporary file of its own (`.dat.nosync…`) that a
    /// killed writer would leave where no clean-up knows its name.
    private static func create(_ path: String) throws(PackError) -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
        guard descriptor >= 0 else { throw systemFailure("cannot be created", path) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// fsyncs a file or folder.
    package static func synchronize(_ path: String) throws(PackError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw systemFailure("cannot be opened to sync it", path) }
        defer { close(descriptor) }
        #if canImport(Glibc)
        let synced = Glibc.fsync(descriptor)
        #else
        let synced = Darwin.fsync(descriptor)
        #endif
        guard synced == 0 else { throw systemFailure("cannot be synced", path) }
    }

    /// A failure of the system call that just failed, with its reason (`errno`).
    static func systemFailure(_ what: String, _ path: String) -> PackError {
        PackError(.system, path: path, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// One entry for ``PackWriter/append(_:)``: an object whole, or as an offset delta
/// (``Delta``) against an earlier entry of the same pack, by its number.
package struct PackEntry {
    package var id: ObjectID
    /// What the entry holds: an object whole, or an offset delta.
    package var type: EntryHeader.EntryType
    /// The object's data, or the delta.
    package var payload: [UInt8]
    /// For a delta, the number of the entry it is made against.
    package var base: Int?

    package init(id: ObjectID, kind: ObjectKind, payload: [UInt8]) {
        (self.id, type, self.payload, base) = (id, EntryHeader.EntryType(kind), payload, nil)
    }

    package init(id: ObjectID, delta: [UInt8], against base: Int) {
        (self.id, type, payload, self.base) = (id, .offsetDelta, delta, base)
    }
}
