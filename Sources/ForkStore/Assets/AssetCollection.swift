/// What a collection of unused assets did: see `collectAssets()`.
public struct AssetCollection: Sendable, Hashable {
    /// How many assets were removed from the store's asset folder.
    public var removed: Int
    /// How many bytes the removed assets held.
    public var bytesFreed: Int
    /// How many assets the folder still holds: those a commit references, the pinned ones, and
    /// those added within the grace period.
    public var kept: Int

    /// A collection's figures.
    public init(removed: Int = 0, bytesFreed: Int = 0, kept: Int = 0) {
        self.removed = removed
        self.bytesFreed = bytesFreed
        self.kept = kept
    }
}
