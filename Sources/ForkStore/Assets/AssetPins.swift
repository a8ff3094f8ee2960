import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The assets pinned in a store, kept for offline use and from collection:
/// `forkstore-pins.json` in its git directory, canonical JSON
/// `{"pins": [<asset reference>…]}` sorted by id, one reference per id. Never synced: pins are
/// one replica's choice. No file means no pins.
///
/// It is replaced whole: written to a temporary file beside it, fsynced, and renamed over it,
/// so a reader sees the old list or the new one, never a mix.
enum AssetPins {
    static let fileName = "forkstore-pins.json"
    /// A list far larger than any app pins (about 80,000 references): a file beyond it is not
    /// ours, and is refused before it is read.
    static let maximumFileSize = 16 << 20

    struct File: Codable {
        var pins: [Asset]
    }

    static func path(gitDirectory: String) -> String {
        (gitDirectory as NSString).appendingPathComponent(fileName)
    }

    /// The pinned assets, sorted by id; none when there is no file.
    ///
    /// - Throws: ``StoreError/fileSystem(path:reason:)`` when the file cannot be read or is not
    ///   a pins file: collection then removes nothing, rather than guess what was pinned.
    static func read(gitDirectory: String) throws(StoreError) -> [Asset] {
        let path = path(gitDirectory: gitDirectory)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if !FileManager.default.fileExists(atPath: path) { return [] }
            throw StoreError.fileSystem(path: path, reason: "it cannot be opened for reading")
        }
        defer { try? handle.close() }
        let bytes: [UInt8]
        do {
            // One byte past the limit tells a file over it, without reading more.
            bytes = Array(try handle.read(upToCount: maximumFileSize + 1) ?? Data())
        } catch {
            throw StoreError.fileSystem(path: path, error: error)
        }
        guard bytes.count <= maximumFileSize else {
            throw StoreError.fileSystem(path: path, reason: "it is over the \(maximumFileSize) bytes a pins file may have")
        }
        func refuse(_ reason: String) -> StoreError {
            StoreError.fileSystem(path: path, reason: "it is not a pins file (\(reason))")
        }
        let json: JSONValue
        do {
            json = try CanonicalJSON.parse(bytes)
        } catch {
            throw refuse(error.description)
        }
        guard case .array(let elements)? = json["pins"] else { throw refuse("it holds no list 'pins'") }
        var pins: [Asset] = []
        for (index, element) in elements.enumerated() {
            guard case .object(let members) = element else { throw refuse("pin \(index) is not an asset reference") }
            switch AssetReferences.asset(from: members, maximumSize: .max) {
            case .success(let asset): pins.append(asset)
            case .failure(let problem): throw refuse("pin \(index): \(problem.reason)")
            }
        }
        return pins.sorted { $0.id < $1.id }
    }

    /// Replaces the list (removing the file when it is empty), durably.
    static func write(_ pins: [Asset], gitDirectory: String) throws(StoreError) {
        let path = path(gitDirectory: gitDirectory)
        guard !pins.isEmpty else {
            guard unlink(path) == 0 || errno == ENOENT else { throw StoreError.fileSystem(path: path, errno: errno) }
            syncFolder(gitDirectory)
            return
        }
        let bytes = try ValueCodec.encode(File(pins: pins.sorted { $0.id < $1.id }))
        let temporary = path + ".tmp-\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw StoreError.fileSystem(path: temporary, errno: errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            let failure = bytes.withUnsafeBytes { buffer -> StoreError? in
                do throws(StoreError) {
                    try AssetFolder.writeAll(buffer, to: descriptor, path: temporary)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            guard fsync(descriptor) == 0 else { throw StoreError.fileSystem(path: temporary, errno: errno) }
        }
        guard rename(temporary, path) == 0 else { throw StoreError.fileSystem(path: path, errno: errno) }
        renamed = true
        syncFolder(gitDirectory)
    }

    /// Makes a rename or removal in `folder` durable.
    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
