import ForkStore

/// Which assets a sync downloads (``ExchangeOptions/assetDownloads``): none (lazy, the
/// default), every one `main` references, or those a predicate picks.
///
/// Whatever the policy, ``Exchange/fetchAsset(_:)`` brings any asset when the app needs it.
/// An eager sync downloads, after its commits are exchanged, the assets that the records (or
/// value) of `main` reference and the store lacks. It reads only what changed in `main` since
/// the last sync that brought every asset it wanted (the first eager sync reads all of
/// `main`), so a policy changed later applies to records that change from then on; fetch
/// others with ``Exchange/fetchAssets(_:)``.
///
/// Downloading the assets of the records a query matches: ForkStoreExchange does not know
/// queries, so decide in the predicate, by record id. The predicate runs on the exchange's own
/// thread (never Swift's cooperative pool), so it may read the store:
///
/// ```swift
/// import ForkStore
/// import ForkStoreExchange
/// import ForkStoreQueries
///
/// struct Note: Resource, Identifiable {
///     static let modelVersion = 1
///     var id: String
///     var starred: Bool
///     var picture: Asset?
/// }
///
/// let notes = try RecordStore<Note>.open(at: "/tmp/notes.store")
/// var options = ExchangeOptions()
/// // The starred notes' pictures, as they are when the sync runs:
/// options.assetDownloads = .eager(where: { reference in
///     guard let id = reference.recordID, let note = try? notes.record(id) else { return false }
///     return note.starred
/// })
/// // Or the ids a query matched (ForkStoreQueries), taken once:
/// let starred = Set(try notes.query(RecordQuery<Note>().filter(\.starred, equals: true)).map(\.id))
/// options.assetDownloads = .eager(where: { reference in reference.recordID.map(starred.contains) ?? false })
/// let exchange = Exchange(records: notes, remote: try Remote("/tmp/remote.git"), options: options)
/// ```
public struct AssetDownloads: Sendable {
    /// Decides whether a sync downloads a referenced asset; nil downloads none.
    let wanted: (@Sendable (ReferencedAsset) -> Bool)?

    /// Nothing is downloaded during a sync: an asset comes when the app asks for it
    /// (``Exchange/fetchAsset(_:)``). The default.
    public static let lazy = AssetDownloads(wanted: nil)

    /// Every asset the synced `main` references that the store lacks.
    public static let eager = AssetDownloads(wanted: { _ in true })

    /// The assets of `main` the predicate picks, from the asset and where it is referenced
    /// (the record's id, the JSON Pointer inside it).
    public static func eager(where predicate: @escaping @Sendable (ReferencedAsset) -> Bool) -> AssetDownloads {
        AssetDownloads(wanted: predicate)
    }

    /// Whether the policy downloads anything during a sync.
    public var isLazy: Bool { wanted == nil }
}
