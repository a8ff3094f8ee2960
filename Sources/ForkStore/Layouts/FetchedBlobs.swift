import ForkStoreGit

/// Where a check ahead (``ContentLayout/startCheckAhead(_:limits:reading:)``) reads a fetch's
/// blobs.
enum FetchedBlobs: Sendable {
    /// The fetched packs once indexed, read front to back on every core, but for the blobs
    /// in `skipping` (checked while they arrived).
    case packs([PackFile], skipping: Set<ObjectID>)
    /// The pack of a fetch still under way, read on the calling thread as it arrives, until
    /// it is complete or its reading is stopped.
    case arriving(ArrivingPack)

    /// Whether reading them waits for a fetch: on a thread of its own then, not the pool's.
    var waitForTheFetch: Bool {
        if case .arriving = self { true } else { false }
    }

    /// Calls `body` with each blob, each at most `maximumObjectSize` bytes: a blob that
    /// cannot be read is passed over (the walk reads it). Returns whether every blob was
    /// read: for an arriving pack, whether it arrived whole and was read to its end.
    func forEach(maximumObjectSize: Int, _ body: @Sendable (ObjectID, PackReader.Object) -> Void) -> Bool {
        switch self {
        case .packs(let packs, let skipped):
            do {
                try Repository.forEachPackedObject(in: packs, of: .blob, skipping: skipped, maximumObjectSize: maximumObjectSize, body)
                return true
            } catch {
                return false
            }
        case .arriving(let pack):
            return ArrivingPackReader.forEachBlob(in: pack, maximumObjectSize: maximumObjectSize, body)
        }
    }
}
