/// What a blob of data may hold, checked on every blob that arrives from elsewhere: its size,
/// and the size each asset reference in it may give.
struct BlobLimits {
    /// The largest blob, in bytes (``StoreOptions/maximumRecordSize``).
    var size: Int
    /// The largest asset a reference may name, in bytes (``StoreOptions/maximumAssetSize``).
    var assetSize: Int = .max

    /// The largest object a check reads from a fetch's packs: a record blob, or a tree, which
    /// may be larger than any record. Nothing a record collection stores whole is larger; the
    /// fetch itself held every object, and every chain of deltas, to its own limits before.
    var readable: Int { max(size, 16 << 20) }
}

extension StoreEngine {
    /// The limits of this store's options.
    var blobLimits: BlobLimits {
        BlobLimits(size: options.maximumRecordSize, assetSize: options.maximumAssetSize)
    }
}
