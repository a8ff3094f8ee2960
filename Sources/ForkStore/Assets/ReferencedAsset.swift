/// An asset and where a store's data holds it: the record (in a record collection) and the
/// reference's place inside the record or value, as a JSON Pointer.
///
/// What an exchange's download policy decides on (`AssetDownloads.eager(where:)` in
/// ForkStoreExchange), and what its errors name when an asset cannot move.
public struct ReferencedAsset: Sendable, Hashable {
    /// The asset.
    public let asset: Asset
    /// The id of the record holding the reference; nil in a single-value store.
    public let recordID: String?
    /// Where the reference is inside the record (or the value), as a JSON Pointer: `/photo`,
    /// `/attachments/0`; empty when the record or value is the reference itself.
    public let pointer: String

    /// An asset referenced at `pointer` inside the record `recordID` (nil: a single value).
    public init(asset: Asset, recordID: String?, pointer: String) {
        self.asset = asset
        self.recordID = recordID
        self.pointer = pointer
    }

    /// Where the reference is, for messages: `record 'ID' at /photo`, or `the value at /photo`.
    public var place: String {
        let at = pointer.isEmpty ? "" : " at \(pointer)"
        return recordID.map { "record '\($0)'\(at)" } ?? "the value\(at)"
    }
}
