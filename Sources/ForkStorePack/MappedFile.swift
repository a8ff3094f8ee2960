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
}
