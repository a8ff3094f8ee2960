import Crypto

/// The SHA-256 of bytes seen a piece at a time, as an ``AssetID``: for a transfer that checks
/// bytes as they move (an upload hashes what it sends), without reading the file twice.
package struct AssetHasher {
    private var hasher = SHA256()

    package init() {}

    /// Adds the next piece.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// The id of every byte added so far.
    package func finish() -> AssetID {
        AssetID(digest: hasher.finalize())
    }
}
