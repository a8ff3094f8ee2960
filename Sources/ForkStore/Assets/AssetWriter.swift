import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an asset's bytes piece by piece, for bytes made as they go (an export, an encoder's
/// output, a recording): what `addAsset(mediaType:fileName:writing:)` hands its closure.
///
/// Each piece is hashed and written to a temporary file in the store's asset folder when it is
/// given, so memory holds one piece at a time, whatever the asset's size. The asset appears
/// only when the closure returns: the file is fsynced and renamed to its hash. If the closure
/// throws, or a write fails, nothing appears and the temporary file is removed.
///
/// ```swift
/// let asset = try store.addAsset(mediaType: "text/csv", fileName: "export.csv") { writer in
///     for row in rows { try writer.write(Data((row + "\n").utf8)) }
/// }
/// ```
///
/// A writer cannot be copied: a copy would hash bytes its file never received.
public struct AssetWriter: ~Copyable {
    private let folder: AssetFolder
    private let file: String
    private let descriptor: Int32
    private let maximumSize: Int
    private var hasher = SHA256()
    private var open = true
    private var placed = false
    /// Set once a write failed: the file and the hash may then disagree, so the asset is refused.
    private var failure: StoreError?

    /// How many bytes were written so far.
    public private(set) var count = 0

    init(folder: AssetFolder, maximumSize: Int) throws(StoreError) {
        let temporary = try folder.makeTemporaryFile()
        self.folder = folder
        self.file = temporary.path
        self.descriptor = temporary.descriptor
        self.maximumSize = maximumSize
    }

    deinit {
        if open { close(descriptor) }
        if !placed { unlink(file) }
    }

    /// Appends bytes to the asset.
    ///
    /// - Throws: ``StoreError/assetTooLarge(size:limit:)`` when the asset would grow past
    ///   ``StoreOptions/maximumAssetSize`` (nothing of this piece is written), and
    ///   ``StoreError/fileSystem(path:reason:)`` when the disk refuses it. After a failure the
    ///   asset is refused whatever follows.
    public mutating func write(_ bytes: some DataProtocol) throws {
        if let failure { throw failure }
        guard count <= maximumSize - bytes.count else {
            let error = StoreError.assetTooLarge(size: count + bytes.count, limit: maximumSize)
            failure = error
            throw error
        }
        let (descriptor, file) = (descriptor, file)
        var hasher = hasher
        defer { self.hasher = hasher }
        for region in bytes.regions {
            let outcome = region.withUnsafeBytes { buffer -> StoreError? in
                do throws(StoreError) {
                    try AssetFolder.writeAll(buffer, to: descriptor, path: file)
                } catch {
                    return error
                }
                hasher.update(bufferPointer: buffer)
                return nil
            }
            if let outcome {
                failure = outcome
                throw outcome
            }
            count += region.count
        }
    }

    /// Fsyncs the file and renames it to its hash; returns the asset's id and size.
    consuming func finish() throws(StoreError) -> (id: AssetID, size: Int) {
        if let failure { throw failure }
        guard fsync(descriptor) == 0 else { throw StoreError.fileSystem(path: file, errno: errno) }
        open = false
        guard close(descriptor) == 0 else { throw StoreError.fileSystem(path: file, errno: errno) }
        let id = AssetID(digest: hasher.finalize())
        try folder.moveIntoPlace(file, id: id)
        placed = true
        return (id, count)
    }
}
