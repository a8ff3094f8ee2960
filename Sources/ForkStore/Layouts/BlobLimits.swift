/// What a blob of data may hold, checked on every blob that arrives from elsewhere: its size,
/// and the size each asset reference in it may give.
struct BlobLimits {
    /// The largest blob, in bytes (``StoreOptions/maximumRecordSize``).
    var size: Int
    /// The largest asset a reference may name, in bytes (``StoreOptions/maximumAssetSize``).
    var assetSize: Int = .max
}

extension StoreEngine {
    /// The limits of this store's options.
    var blobLimits: BlobLimits {
        BlobLimits(size: options.maximumRecordSize, assetSize: options.maximumAssetSize)
    }
}
