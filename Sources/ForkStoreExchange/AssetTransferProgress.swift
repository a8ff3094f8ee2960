import ForkStore

/// How far the transfer of one asset has come: in ``ExchangeEvent/assetProgress(_:)`` events
/// and in ``ExchangeStatus/pendingTransfers``.
public struct AssetTransferProgress: Sendable, Equatable {
    /// Whether the asset is going to the remote or coming from it.
    public enum Direction: Sendable, Equatable {
        /// To the remote, before the commits that reference it are pushed.
        case upload
        /// From the remote, into the store's asset folder.
        case download
    }

    /// Upload or download.
    public var direction: Direction
    /// The asset moving.
    public var asset: Asset
    /// Its bytes moved so far, counting those an interrupted transfer had moved before this
    /// one resumed it.
    public var bytes: Int
    /// Its size.
    public var totalBytes: Int

    /// A transfer of `asset` that has moved `bytes` of its `totalBytes`.
    public init(direction: Direction, asset: Asset, bytes: Int, totalBytes: Int) {
        self.direction = direction
        self.asset = asset
        self.bytes = bytes
        self.totalBytes = totalBytes
    }
}
