import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory: as `Data` that unmaps it when the last copy goes, or
/// held as ``PinnedBytes``.
///
/// Every pack and index the pack format reads comes through here. Mapped here rather than
/// through `Data(contentsOf:options: .alwaysMapped)`, which may copy a file instead: ``PackReader`` gives the pages it has read back to the system
/// (`MADV_DONTNEED`), which is only harmless on a file mapping, where they are read again on
/// the next touch; on copied memory it would zero them.
enum MappedFile {
    static func map(_ path: String) throws(PackError) -> Data {
        guard let (address, size) = try mapping(path) else { return Data() }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// The file at `path` mapped read-only: its address and size, which `munmap` takes back;
    /// nil for an empty file, which cannot be mapped.
    static func mapping(_ path: String) throws(PackError) -> (address: UnsafeMutableRawPointer, size: Int)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackWriter.systemFailure("cannot be opened", path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw PackWriter.systemFailure("cannot be read", path) }
        let size = Int(status.st_size)
        guard size > 0 else { return nil }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { throw PackWriter.systemFailure("cannot be mapped", path) }
        return (address, size)
    }

    /// Tells the system this process no longer needs the pages of `data` (a mapping made by
    /// ``map(_:)``) that lie wholly inside `start..<end`. On a file mapping this loses nothing
    /// (a later read maps them again), and the pages leave the process's resident memory: a
    /// whole pack mapped and read would otherwise add its size to the peak of every roll-up.
    static func release(_ data: Data, from start: Int, to end: Int) {
        data.withUnsafeBytes { release($0, from: start, to: end) }
    }

    /// ``release(_:from:to:)`` for the bytes of a mapping held as ``PinnedBytes``.
    static func release(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        guard let base = bytes.baseAddress else { return }
        let page = Int(getpagesize())
        let address = Int(bitPattern: base)
        let first = (address + start + page - 1) / page * page, last = (address + end) / page * page
        guard last > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), last - first, MADV_DONTNEED)
    }
}

/// Bytes that stay at one address for as long as this lives, read through a pointer: a file
/// mapped read-only (unmapped when this goes), or bytes copied into memory of its own.
///
/// For reads that are many and small, as a listing's are (an id looked up in each pack's
/// index, an entry's header): each through `Data.withUnsafeBytes` was a closure and a switch
/// over `Data`'s representations, and each copy of a `Data` a reference counted, 3 to 5% of
/// the listing's processor time in all.
///
/// `@unchecked Sendable`: the bytes are never written through it, and live as long as it does.
package final class PinnedBytes: @unchecked Sendable {
    /// The bytes, valid for this object's life only: read them through an owner that keeps it
    /// (a pack index, the mapped packs), never from a `PinnedBytes` made for the read.
    package let bytes: UnsafeRawBufferPointer
    private let isMapped: Bool

    /// The file at `path`, mapped read-only.
    package init(mapping path: String) throws(PackError) {
        let mapping = try MappedFile.mapping(path)
        bytes = UnsafeRawBufferPointer(start: mapping?.address, count: mapping?.size ?? 0)
        isMapped = true
    }

    /// A copy of `data`.
    package init(copying data: Data) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        copy.copyBytes(from: data)
        bytes = UnsafeRawBufferPointer(copy)
        isMapped = false
    }

    /// Gives the pages read back to the system when the bytes are a file mapping
    /// (``MappedFile/release(_:from:to:)``); bytes copied into memory are kept as they are.
    package func releasePages() {
        if isMapped { MappedFile.release(bytes, from: 0, to: bytes.count) }
    }

    deinit {
        guard let address = bytes.baseAddress else { return }
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: address), bytes.count)
        } else {
            bytes.deallocate()
        }
    }
}
