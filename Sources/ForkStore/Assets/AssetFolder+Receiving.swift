import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Copying an object in from a file elsewhere (another asset folder: a path remote's, or the
/// store's own when the remote is the one receiving), resumably: what a killed copy left in
/// the partial file (``AssetFolder/partialPath(of:)``) is kept and the copy goes on from its
/// length. A megabyte moves at a time, so memory stays flat whatever the size.
extension AssetFolder {
    /// Copies the object `id` of `size` bytes from `source` into this folder, resuming from what
    /// an earlier copy left in the partial file, and moves it into place once it hashes to
    /// `id` (``commit(_:as:size:)``). Returns the bytes this call copied (0 when the object was
    /// here already).
    ///
    /// The source must be a regular file of exactly `size` bytes, checked before anything is
    /// written here, so a wrong one leaves nothing behind. A copy of the same object by another
    /// thread or process waits for that one (a lock on the partial file) and then finds the
    /// object in place. When what an earlier copy left does not hash right, the copy starts
    /// over once from the first byte. `progress` is called with the bytes in the partial file:
    /// first what was there already, then after each megabyte. `pause` waits between
    /// megabytes (tests use it to stop a copy half-way).
    ///
    /// - Throws: ``StoreError/assetCorrupt(id:reason:)`` when the source is not a file of
    ///   `size` bytes, or its bytes do not hash to `id` (nothing is kept);
    ///   ``StoreError/fileSystem(path:reason:)`` naming the path that failed.
    package func receive(
        _ id: AssetID, size: Int, from source: String, pause: Duration = .zero, progress: (Int) -> Void = { _ in }
    ) throws(StoreError) -> Int {
        if contains(id, size: size) { return 0 }
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard input >= 0 else { throw StoreError.fileSystem(path: source, errno: errno) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw StoreError.fileSystem(path: source, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.assetCorrupt(id: id, reason: "\(source) is not a regular file")
        }
        guard Int(info.st_size) == size else {
            throw StoreError.assetCorrupt(id: id, reason: "\(source) holds \(info.st_size) bytes where the asset has \(size)")
        }
        var copied = 0
        for attempt in 0..<2 {
            switch try copyAttempt(id, size: size, from: (input, source), pause: pause, copied: &copied, progress: progress) {
            case .done: return copied
            case .startOver where attempt == 0: continue
            case .startOver: break
            }
        }
        return copied
    }

    private enum Attempt {
        case done
        /// What an earlier copy left did not hash right and was removed.
        case startOver
    }

    private func copyAttempt(
        _ id: AssetID, size: Int, from input: (descriptor: Int32, path: String), pause: Duration, copied: inout Int,
        progress: (Int) -> Void
    ) throws(StoreError) -> Attempt {
        let partial = partialPath(of: id)
        let output = try openLockedPartial(partial)
        defer { close(output) }
        // Another copy finished while this one waited for the lock: what is at the partial
        // path now is this one's own empty file.
        if contains(id, size: size) {
            unlink(partial)
            return .done
        }
        var info = stat()
        guard fstat(output, &info) == 0 else { throw StoreError.fileSystem(path: partial, errno: errno) }
        var offset = Int(info.st_size)
        if offset > size {
            guard ftruncate(output, 0) == 0 else { throw StoreError.fileSystem(path: partial, errno: errno) }
            offset = 0
        }
        let resumed = offset
        progress(offset)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while offset < size {
            let count = pread(input.descriptor, buffer.baseAddress, min(buffer.count, size - offset), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.fileSystem(path: input.path, errno: errno)
            }
            if count == 0 { break }  // the source shrank: the hash check refuses it below
            try writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: output, at: offset, path: partial)
            offset += count
            copied += count
            progress(offset)
            if pause > .zero, offset < size { Self.sleep(pause) }
        }
        guard fsync(output) == 0 else { throw StoreError.fileSystem(path: partial, errno: errno) }
        do {
            try commit(partial, as: id, size: size)
        } catch {
            // `commit` removed the partial file. Bytes an earlier copy left may be what was
            // wrong (a disk that lost them): start over once.
            if error.code == .assetCorrupt, resumed > 0 { return .startOver }
            throw error
        }
        return .done
    }

    /// Opens (creating it) and locks the partial file at `path`, waiting for another copy of
    /// the same object that holds it. Checks that the locked file is still the one at `path`:
    /// the copy that held the lock may have renamed it into place or removed it meanwhile.
    /// Every transfer into the folder (a copy, a Git LFS download) takes this lock, and holds
    /// it until the object is hashed and moved into place, so two of one object, in threads
    /// or processes, wait for each other.
    package func openLockedPartial(_ path: String) throws(StoreError) -> Int32 {
        try makeFolder((path as NSString).deletingLastPathComponent)
        for _ in 0..<16 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else { throw StoreError.fileSystem(path: path, errno: errno) }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let code = errno
                    close(descriptor)
                    throw StoreError.fileSystem(path: path, errno: code)
                }
            }
            var held = stat(), named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return descriptor
            }
            close(descriptor)
        }
        throw StoreError.fileSystem(path: path, reason: "other transfers of the same asset kept replacing its partial file")
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int, path: String) throws(StoreError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreError.fileSystem(path: path, errno: errno)
            }
            done += written
        }
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
