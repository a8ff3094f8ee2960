import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of asset bytes laid out as Git LFS lays out `.git/lfs`: each object at
/// `objects/<hex 0-1>/<hex 2-3>/<hex>`, and transfers in progress under `tmp/`. The store's
/// own (`<store>/lfs`) and a path remote's (`<remote repository>/lfs`) are both one.
///
/// Every path comes from an ``AssetID`` (64 hexadecimal digits), never from outside text, so
/// nothing a server or a record says can name a file outside the folder. An object appears
/// only whole and checked: its bytes are written to a file under `tmp/`, fsynced, hashed, and
/// renamed into place only when they hash to the id.
package struct AssetFolder: Sendable {
    /// The folder (`…/lfs`).
    package let root: String

    package init(root: String) {
        self.root = root
    }

    /// The asset folder of a git directory (a store's or a path remote's): `<gitDirectory>/lfs`.
    package init(gitDirectory: String) {
        self.root = (gitDirectory as NSString).appendingPathComponent("lfs")
    }

    /// Where the object with this id lives (whether or not it is there).
    package func path(of id: AssetID) -> String {
        let hex = id.hex
        return "\(root)/objects/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"
    }

    /// Where a transfer of this object in progress keeps what it has so far: a later transfer
    /// resumes from its length.
    package func partialPath(of id: AssetID) -> String {
        "\(root)/tmp/\(id.hex).part"
    }

    /// Whether the object is here with the expected size (its bytes were checked when it
    /// arrived).
    package func contains(_ id: AssetID, size: Int) -> Bool {
        var info = stat()
        return stat(path(of: id), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && Int(info.st_size) == size
    }

    /// Whether the object is here, of any size.
    package func contains(_ id: AssetID) -> Bool {
        FileManager.default.fileExists(atPath: path(of: id))
    }

    /// The ids of every object in the folder.
    package func objects() -> [AssetID] {
        let objects = (root as NSString).appendingPathComponent("objects")
        guard let enumerator = FileManager.default.enumerator(atPath: objects) else { return [] }
        var ids: [AssetID] = []
        for case let relative as String in enumerator {
            let name = (relative as NSString).lastPathComponent
            if name.utf8.count == 64, let id = AssetID(name), relative == String(path(of: id).dropFirst(objects.count + 1)) {
                ids.append(id)
            }
        }
        return ids.sorted()
    }

    /// Copies a file in, hashing as it goes, a megabyte at a time; returns its id and size.
    /// The bytes are copied before they are hashed, so a file changed while it is read is
    /// stored under the hash of what was read.
    package func add(contentsOf file: String, maximumSize: Int) throws(StoreError) -> (id: AssetID, size: Int) {
        let source = open(file, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw StoreError.fileSystem(path: file, errno: errno) }
        defer { close(source) }
        return try add(maximumSize: maximumSize) { buffer throws(StoreError) in
            while true {
                let count = read(source, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                guard errno == EINTR else { throw StoreError.fileSystem(path: file, errno: errno) }
            }
        }
    }

    /// Writes bytes in, pulled by `next` into a buffer until it returns 0; returns their id
    /// and size.
    package func add(maximumSize: Int, next: (UnsafeMutableRawBufferPointer) throws(StoreError) -> Int) throws(StoreError) -> (
        id: AssetID, size: Int
    ) {
        let temporary = try makeTemporaryFile()
        var removeTemporary = true
        defer { if removeTemporary { unlink(temporary.path) } }
        var hasher = SHA256()
        var size = 0
        do {
            defer { close(temporary.descriptor) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = try next(buffer)
                if count == 0 { break }
                size += count
                guard size <= maximumSize else { throw StoreError.assetTooLarge(size: size, limit: maximumSize) }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                hasher.update(bufferPointer: chunk)
                try Self.writeAll(chunk, to: temporary.descriptor, path: temporary.path)
            }
            guard fsync(temporary.descriptor) == 0 else { throw StoreError.fileSystem(path: temporary.path, errno: errno) }
        }
        let id = AssetID(digest: hasher.finalize())
        // Even when the object is here already: the new file replaces it whole, so a damaged
        // copy is healed, and its fresh time keeps it through a collection running now (see
        // `StoreEngine.collectAssets`), as git freshens an object written again.
        try moveIntoPlace(temporary.path, id: id)
        removeTemporary = false
        return (id, size)
    }

    /// Checks the bytes at `file` (a finished transfer) against the id and size, and moves
    /// them into place; bytes that do not match are removed and refused.
    package func commit(_ file: String, as id: AssetID, size: Int) throws(StoreError) {
        let found = try Self.hash(of: file)
        guard found.id == id, found.size == size else {
            unlink(file)
            throw StoreError.assetCorrupt(
                id: id, reason: found.size == size ? "the bytes hash to \(found.id), not to the asset's id"
                    : "\(found.size) bytes arrived where the asset has \(size)")
        }
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw StoreError.fileSystem(path: file, errno: errno) }
        }
        try moveIntoPlace(file, id: id)
    }

    /// Reads the object back and checks it hashes to its id: true when it does, false when
    /// it is missing or damaged.
    package func verify(_ id: AssetID, size: Int) -> Bool {
        guard contains(id, size: size), let found = try? Self.hash(of: path(of: id)) else { return false }
        return found.id == id && found.size == size
    }

    /// Removes the object if its bytes are damaged, and only then: it is set aside first and
    /// hashed there, so a good copy that an add or a download renamed into place meanwhile is
    /// put back, not lost (one killed half-way leaves the set-aside file, which the next
    /// collection puts back and decides on again). True when damaged bytes were removed.
    package func removeIfDamaged(_ id: AssetID, size: Int) -> Bool {
        let aside = AssetFolderListing.setAsidePath(of: id, in: self)
        guard (try? makeFolder((aside as NSString).deletingLastPathComponent)) != nil, rename(path(of: id), aside) == 0 else {
            return false
        }
        if let found = try? Self.hash(of: aside), found.id != id || found.size != size {
            return unlink(aside) == 0
        }
        if link(aside, path(of: id)) == 0 || errno == EEXIST { unlink(aside) }
        return false
    }

    /// Removes an object (gone already is fine).
    package func remove(_ id: AssetID) throws(StoreError) {
        let target = path(of: id)
        guard unlink(target) == 0 || errno == ENOENT else { throw StoreError.fileSystem(path: target, errno: errno) }
    }

    /// The SHA-256 and length of a file, read a megabyte at a time.
    package static func hash(of file: String) throws(StoreError) -> (id: AssetID, size: Int) {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.fileSystem(path: file, errno: errno) }
        defer { close(descriptor) }
        var hasher = SHA256()
        var size = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw StoreError.fileSystem(path: file, errno: errno)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += count
        }
        return (AssetID(digest: hasher.finalize()), size)
    }

    /// A megabyte: what one read or write moves, so memory stays flat whatever the size.
    package static let chunkSize = 1 << 20

    // MARK: Files

    /// Makes `tmp/` (and the folder) if missing and opens a new file in it.
    package func makeTemporaryFile() throws(StoreError) -> (path: String, descriptor: Int32) {
        let folder = (root as NSString).appendingPathComponent("tmp")
        try makeFolder(folder)
        let path = (folder as NSString).appendingPathComponent("add-\(UUID().uuidString)")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw StoreError.fileSystem(path: path, errno: errno) }
        return (path, descriptor)
    }

    /// Renames a whole, fsynced, checked file into the object's place (replacing any copy
    /// there) and fsyncs the folder, so the new name is durable.
    package func moveIntoPlace(_ file: String, id: AssetID) throws(StoreError) {
        let target = path(of: id)
        let folder = (target as NSString).deletingLastPathComponent
        try makeFolder(folder)
        guard rename(file, target) == 0 else { throw StoreError.fileSystem(path: target, errno: errno) }
        // The rename is durable once the folder holding the new name is.
        Self.fsyncFolder(folder)
    }

    /// Makes the folder and any missing parents, fsyncing the parent of each one it makes: an
    /// object renamed into a new `objects/ab/cd` must not vanish in a power loss that the
    /// commit naming it survives.
    package func makeFolder(_ folder: String) throws(StoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let parent = (folder as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != folder { try makeFolder(parent) }
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw StoreError.fileSystem(path: folder, errno: errno) }
        Self.fsyncFolder(parent)
    }

    private static func fsyncFolder(_ folder: String) {
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }

    /// Writes all of `bytes` to the open file, however many calls it takes.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(StoreError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreError.fileSystem(path: path, errno: errno)
            }
            offset += written
        }
    }
}
