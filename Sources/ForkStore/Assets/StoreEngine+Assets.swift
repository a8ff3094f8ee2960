import ForkStoreGit
import Foundation

/// Adding, finding and pinning the store's assets: their bytes live in ``assetFolder``, outside
/// git's object database; records hold only references to them.
extension StoreEngine {
    /// Copies a file into the asset folder, a megabyte at a time, and returns its reference.
    func addAsset(contentsOf file: String, mediaType: String, fileName: String?) throws -> Asset {
        try Self.checkFileName(fileName)
        try requireWritable()
        let (id, size) = try assetFolder.add(contentsOf: file, maximumSize: options.maximumAssetSize)
        return Asset(id: id, size: size, mediaType: mediaType, fileName: fileName)
    }

    /// Writes bytes into the asset folder as `next` fills a megabyte buffer (0: the end).
    func addAsset(
        mediaType: String, fileName: String?, next: (UnsafeMutableRawBufferPointer) throws(StoreError) -> Int
    ) throws -> Asset {
        try Self.checkFileName(fileName)
        try requireWritable()
        let (id, size) = try assetFolder.add(maximumSize: options.maximumAssetSize, next: next)
        return Asset(id: id, size: size, mediaType: mediaType, fileName: fileName)
    }

    /// Writes what `body` gives an ``AssetWriter`` into the asset folder.
    func addAsset(mediaType: String, fileName: String?, writing body: (inout AssetWriter) throws -> Void) throws -> Asset {
        try Self.checkFileName(fileName)
        try requireWritable()
        var writer = try AssetWriter(folder: assetFolder, maximumSize: options.maximumAssetSize)
        try body(&writer)
        let (id, size) = try writer.finish()
        return Asset(id: id, size: size, mediaType: mediaType, fileName: fileName)
    }

    /// A reference's file name is a name without folders (FORMAT.md); a name that is not one
    /// is refused before any byte is read, as other replicas would refuse the reference.
    static func checkFileName(_ name: String?) throws(StoreError) {
        guard let name, name.utf8.contains(0x2F) || name.utf8.contains(0) else { return }
        throw StoreError.encodingFailed(reason: "an asset's file name has no folders, and '\(name)' names one")
    }

    /// The asset's file in the asset folder.
    ///
    /// - Throws: ``StoreError/assetNotLocal(id:)`` when its bytes are not here, and
    ///   ``StoreError/assetCorrupt(id:reason:)`` when the file here has another size.
    func localURL(of asset: Asset) throws(StoreError) -> URL {
        let path = assetFolder.path(of: asset.id)
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { throw StoreError.fileSystem(path: path, errno: errno) }
            throw StoreError.assetNotLocal(id: asset.id)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == asset.size else {
            throw StoreError.assetCorrupt(id: asset.id, reason: "the file here has \(info.st_size) bytes where the asset has \(asset.size)")
        }
        return URL(fileURLWithPath: path)
    }

    /// Reads the asset's bytes back and checks they hash to its id; damaged bytes are removed,
    /// so that a fetch brings them again.
    func verifyAsset(_ asset: Asset) throws {
        let path = try localURL(of: asset).path
        let found = try AssetFolder.hash(of: path)
        guard found.id != asset.id || found.size != asset.size else { return }
        let removed = (try? requireWritable()) != nil && assetFolder.removeIfDamaged(asset.id, size: asset.size)
        throw StoreError.assetCorrupt(
            id: asset.id, reason: "the bytes here hash to \(found.id)\(removed ? "; they were removed" : "")")
    }

    /// Every asset referenced in the trees of the commits reachable from `heads` but from none
    /// of `hidden`, with the size its reference gives: what the remote must hold before those
    /// commits are pushed (``AssetReachability``; the remote tells which it lacks). Whole trees
    /// are read, so assets the hidden commits hold too are among them. Malformed references
    /// are left out: the store's writes refuse them, and another replica would refuse a
    /// commit holding one whatever its assets.
    package func referencedAssets(reachableFrom heads: [CommitID], hiding hidden: [CommitID] = []) throws -> [AssetID: Int] {
        let repository = try git("opening the store to list assets") { () throws(GitError) in try Repository.openBare(at: path) }
        var reachability = AssetReachability(hiding: hidden.map(\.objectID))
        for head in heads { try reachability.walk(from: head.objectID, in: repository) }
        return reachability.referenced
    }

    // MARK: Pins

    /// The pinned assets, sorted by id.
    func pinnedAssets() throws(StoreError) -> [Asset] {
        try AssetPins.read(gitDirectory: path)
    }

    /// Adds (true) or removes (false) a pin, under the writer lock: pins change by
    /// read-modify-write of one file, which two writers must not interleave.
    func setPinned(_ asset: Asset, _ pinned: Bool) throws {
        try write { _ in
            var pins = try AssetPins.read(gitDirectory: path)
            let existing = pins.firstIndex { $0.id == asset.id }
            switch (existing, pinned) {
            case (nil, false): return
            case (let index?, true) where pins[index] == asset: return
            case (let index?, true): pins[index] = asset
            case (nil, true): pins.append(asset)
            case (let index?, false): pins.remove(at: index)
            }
            try AssetPins.write(pins, gitDirectory: path)
            // A collection deciding now read the pins before this one: freshening the object
            // puts it in the grace period, which its last check before removing honours.
            if pinned { _ = utimensat(AT_FDCWD, assetFolder.path(of: asset.id), nil, 0) }
        }
    }
}
