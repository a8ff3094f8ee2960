import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory, as `Data` that unmaps it when the last copy goes.
///
/// Every pack and index the pack format reads comes through here. Mapped here rather than
/// through `Data(contentsOf:options: .alwaysMapped)`, which may copy a file instead: ``PackReader`` gives the pages it has read back to the system
/// (`MADV_DONTNEED`), which is only harmless on a file mapping, where they are read again on
/// the next touch; on copied memory it would zero them.
enum MappedFile {
    static func map(_ path: String) throws(PackError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PackWriter.systemFailure("cannot be opened", path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw PackWriter.systemFailure("cannot be read", path) }
        let size = Int(status.st_size)
        guard size > 0 else { return Data() }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { throw PackWriter.systemFailure("cannot be mapped", path) }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// Tells the system this process no longer needs the pages of `data` (a mapping made by
    /// ``map(_:)``) that lie wholly inside `start..<end`. On a file mapping this loses nothing
    /// (a later read maps them again), and the pages leave the process's resident memory: a
    /// whole pack mapped and read would otherwise add its size to the peak of every roll-up.
    static func release(_ data: Data, from start: Int, to end: Int) {
        let page = Int(getpagesize())
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            let address = Int(bitPattern: base)
            let first = (address + start + page - 1) / page * page, last = (address + end) / page * page
            guard last > first else { return }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: first), last - first, MADV_DONTNEED)
        }
    }
}
