import ForkStore
import Foundation

// Adding assets to a store for the exchange's tests and the stress writer, through the asset
// folder itself. The one place to change when the store's own API (`addAsset`) is used instead.

/// A record holding an attachment: what the asset sync tests exchange.
public struct AttachmentNote: Resource, Identifiable, Equatable {
    public static let modelVersion = 1

    public var id: String
    public var title: String
    public var file: Asset?

    public init(id: String, title: String, file: Asset?) {
        self.id = id
        self.title = title
        self.file = file
    }
}

/// Copies `file` into the store's asset folder and returns its reference.
public func addTestAsset(
    to store: some VersionedStore, contentsOf file: String, mediaType: String = "application/octet-stream", fileName: String? = nil
) throws -> Asset {
    let (id, size) = try AssetFolder(gitDirectory: store.path).add(contentsOf: file, maximumSize: store.options.maximumAssetSize)
    return Asset(id: id, size: size, mediaType: mediaType, fileName: fileName)
}

/// Writes `bytes` into the store's asset folder and returns their reference.
public func addTestAsset(to store: some VersionedStore, bytes: [UInt8], fileName: String? = nil) throws -> Asset {
    var offset = 0
    let (id, size) = try AssetFolder(gitDirectory: store.path).add(maximumSize: store.options.maximumAssetSize) { buffer in
        let count = min(buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { source in buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + count)])) }
        offset += count
        return count
    }
    return Asset(id: id, size: size, fileName: fileName)
}

/// Whether the store holds the asset's bytes.
public func isLocal(_ asset: Asset, in store: some VersionedStore) -> Bool {
    AssetFolder(gitDirectory: store.path).contains(asset.id, size: asset.size)
}

/// Where the store keeps (or would keep) the asset's bytes.
public func localPath(of asset: Asset, in store: some VersionedStore) -> String {
    AssetFolder(gitDirectory: store.path).path(of: asset.id)
}

/// Where the store keeps what an interrupted download of the asset has brought so far.
public func partialPath(of asset: Asset, in store: some VersionedStore) -> String {
    AssetFolder(gitDirectory: store.path).partialPath(of: asset.id)
}

/// A file of `size` pseudo-random bytes from `seed`, written a megabyte at a time.
public func writeRandomFile(_ path: String, size: Int, seed: UInt64) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw CocoaError(.fileWriteUnknown)
    }
    defer { try? handle.close() }
    var generator = SplitMix(state: seed)
    var written = 0
    while written < size {
        let count = min(1 << 20, size - written)
        var chunk = [UInt8](repeating: 0, count: count)
        chunk.withUnsafeMutableBytes { buffer in
            var index = 0
            while index + 8 <= count {
                buffer.storeBytes(of: generator.next(), toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < count {
                buffer[index] = UInt8(truncatingIfNeeded: generator.next())
                index += 1
            }
        }
        try handle.write(contentsOf: chunk)
        written += count
    }
}
