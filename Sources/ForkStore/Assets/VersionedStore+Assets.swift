import Foundation

extension VersionedStore {
    // MARK: Adding assets

    /// Copies a file into the store's asset folder and returns the ``Asset`` to keep in a
    /// record or value.
    ///
    /// The file is read a megabyte at a time, hashed as it is copied, fsynced and renamed into
    /// place under its SHA-256, so memory stays flat whatever its size, and the asset appears
    /// whole or not at all. Adding the same bytes again gives the same id and keeps one copy.
    /// The asset is kept from collection for an hour (see `collectAssets()`): save the record
    /// that holds it within that time, or pin it.
    ///
    /// - Parameters:
    ///   - file: a file URL.
    ///   - mediaType: the media type; nil guesses it from the file's extension
    ///     (``Asset/mediaType(forFileExtension:)``).
    ///   - fileName: the name to offer when the asset is saved or shown; nil takes the file's
    ///     own name. It may not hold a `/`.
    /// - Throws: ``StoreError/assetTooLarge(size:limit:)`` past ``StoreOptions/maximumAssetSize``,
    ///   ``StoreError/fileSystem(path:reason:)`` when the file cannot be read,
    ///   ``StoreError/encodingFailed(reason:)`` for a file name with a `/`, and
    ///   ``StoreError/readOnlyStore(path:)`` when this process may not write the store.
    public func addAsset(contentsOf file: URL, mediaType: String? = nil, fileName: String? = nil) throws -> Asset {
        guard file.isFileURL else {
            throw StoreError.fileSystem(path: file.absoluteString, reason: "it is not a file URL")
        }
        return try engine.addAsset(
            contentsOf: file.path, mediaType: mediaType ?? Asset.mediaType(forFileExtension: file.pathExtension),
            fileName: fileName ?? file.lastPathComponent)
    }

    /// Adds bytes already in memory as an asset, written a megabyte at a time; see
    /// `addAsset(contentsOf:mediaType:fileName:)`.
    public func addAsset(_ bytes: Data, mediaType: String = Asset.unknownMediaType, fileName: String? = nil) throws -> Asset {
        var offset = 0
        return try engine.addAsset(mediaType: mediaType, fileName: fileName) { buffer in
            let count = min(buffer.count, bytes.count - offset)
            bytes.copyBytes(to: buffer, from: bytes.startIndex + offset..<bytes.startIndex + offset + count)
            offset += count
            return count
        }
    }

    /// Adds bytes made piece by piece (an export, an encoder's output, a recording) as an
    /// asset: `writing` gives them to an ``AssetWriter``, which hashes and writes each piece
    /// as it comes, so memory holds one piece at a time. The asset appears when `writing`
    /// returns; if it throws, nothing appears.
    ///
    /// ```swift
    /// let log = try store.addAsset(mediaType: "text/plain", fileName: "log.txt") { writer in
    ///     for line in lines { try writer.write(Data((line + "\n").utf8)) }
    /// }
    /// ```
    ///
    /// - Throws: what `writing` throws, and as `addAsset(contentsOf:mediaType:fileName:)`.
    public func addAsset(
        mediaType: String = Asset.unknownMediaType, fileName: String? = nil, writing: (inout AssetWriter) throws -> Void
    ) throws -> Asset {
        try engine.addAsset(mediaType: mediaType, fileName: fileName, writing: writing)
    }

    // MARK: Reading assets

    /// Whether the asset's bytes are in this store's asset folder, with the asset's size. An
    /// asset from another replica is here once a sync or a fetch brought it.
    public func isLocal(_ asset: Asset) -> Bool {
        engine.assetFolder.contains(asset.id, size: asset.size)
    }

    /// The file holding the asset's bytes, in the store's asset folder: open it for reading,
    /// never write or move it. Its bytes were checked against the asset's id when they
    /// arrived; `verifyAsset(_:)` checks them again.
    ///
    /// - Throws: ``StoreError/assetNotLocal(id:)`` when the bytes are not here (fetch them
    ///   through the exchange), and ``StoreError/assetCorrupt(id:reason:)`` when the file here
    ///   has another size than the asset.
    public func localURL(of asset: Asset) throws -> URL {
        try engine.localURL(of: asset)
    }

    /// Reads the asset's bytes back and checks that they hash to its id: for bytes that may
    /// have been damaged on disk since they arrived. Damaged bytes are removed, so that the
    /// next fetch brings them again.
    ///
    /// - Throws: ``StoreError/assetCorrupt(id:reason:)`` when they do not hash to its id, and
    ///   ``StoreError/assetNotLocal(id:)`` when they are not here.
    public func verifyAsset(_ asset: Asset) throws {
        try engine.verifyAsset(asset)
    }

    // MARK: Pins

    /// Pins an asset: collection never removes it, and a sync keeps its bytes here for use
    /// offline (fetching them if they are not here yet). Pins belong to this replica: they are
    /// kept in the store's folder (`forkstore-pins.json`) and never synced.
    ///
    /// - Throws: ``StoreError/readOnlyStore(path:)`` when this process may not write the store.
    public func pin(_ asset: Asset) throws {
        try engine.setPinned(asset, true)
    }

    /// Removes an asset's pin (nothing happens if it has none). Its bytes stay while a commit
    /// references it.
    public func unpin(_ asset: Asset) throws {
        try engine.setPinned(asset, false)
    }

    /// The pinned assets, sorted by id.
    public func pinnedAssets() throws -> [Asset] {
        try engine.pinnedAssets()
    }

    // MARK: Collection

    /// Removes from the asset folder the assets nothing needs any more, and returns what it
    /// did; `pack()` does it too.
    ///
    /// Kept: every asset referenced by a commit any reference of the store reaches (every
    /// fork, `cloud`, commits not yet synced, a refused fetch kept in quarantine), every
    /// pinned asset, and every asset added within the last hour, by the store's wall clock
    /// (``StoreOptions/wallClock``), so one added but not yet saved in a record survives a
    /// collection running meanwhile. When the history cannot be read whole, nothing is removed.
    ///
    /// - Throws: ``StoreError/readOnlyStore(path:)`` when this process may not write the store,
    ///   and `CancellationError` from the async twin when its task is cancelled (what was
    ///   removed by then stays removed; nothing kept is touched).
    public func collectAssets() throws -> AssetCollection {
        try engine.collectAssets()
    }
}
