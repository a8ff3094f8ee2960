import ForkStore

/// Timeouts, retries, backoff and the app's hooks.
public struct ExchangeOptions: Sendable {
    /// How long opening a connection to the remote may take before the sync fails as
    /// ``ExchangeError/offline(remote:reason:)`` (a host that drops packets would otherwise
    /// hold a sync for the system's TCP timeout, minutes). Covers `git://`, `http(s)://` and
    /// `ssh://`.
    public var connectTimeout: Duration
    /// How long one read from or write to the remote may wait for the other end before the
    /// sync fails as offline. Covers `git://` and `http(s)://`; over `ssh://`, libssh2 reads
    /// the connection itself and waits for a silent server without a limit once connected.
    /// Asset transfers over Git LFS fail as offline when they average under 1 KiB a second over
    /// this time, and a Git LFS batch or verify request when it takes more than twice this.
    public var readWriteTimeout: Duration
    /// Fetch-merge-push rounds to try when the push loses a race to another writer.
    public var maximumPushAttempts: Int
    /// The first delay after a failure; each further failure doubles it, up to `maximumBackoff`.
    public var initialBackoff: Duration
    /// The longest delay between retries.
    public var maximumBackoff: Duration
    /// How long a sync waits for another sync of the same store (in this process or another)
    /// to finish before it fails as ``ExchangeError/busy(waited:)``: syncs of one store run one
    /// at a time.
    public var busyTimeout: Duration
    /// The largest object a fetch may bring — a commit, a tree or a blob, whole or rebuilt from
    /// a delta — in bytes. Checked from the size the data declares (a pack entry's header, a
    /// delta's result-size header, an object's header) before any memory is taken for the
    /// object; a larger one fails the sync with ``ExchangeError/tooLarge(remote:limit:maximum:size:object:)``.
    /// Nil (the default) takes the store's `StoreOptions.maximumRecordSize`, but at least
    /// 1 MB: no record may be larger, and trees and commits get room whatever size records have.
    public var maximumObjectSize: Int?
    /// The most one fetch may bring, in bytes (default 1 GiB): counted as received, and again
    /// as the sizes of its objects (a delta counted as the object it makes). It bounds what a
    /// fetch costs in time and disk, and what the transfer repository keeps of a refused one.
    public var maximumFetchSize: Int
    /// The most objects one fetch may bring (default 1,000,000). What taking a fetch in costs
    /// grows with its number of objects as well as with their sizes: about 150 bytes an
    /// object over the network (libgit2's indexer, then the checks), about 500 from a path
    /// remote (walking, copying and checking them). A pack announcing more objects is refused
    /// from its header, before any is indexed; from a path remote, the fetch is refused as the
    /// count is reached. The default takes a new replica's first fetch of a store of about
    /// 400,000 records (a blob each, a tree per shard folder, every commit and its trees), and
    /// bounds what a hostile fetch of tiny objects costs before it is refused: about 150 MB
    /// over the network. An app whose stores stay small can lower it: 100,000 keeps that cost
    /// within 64 MB of memory beyond the store's own.
    public var maximumObjectCount: Int
    /// The owners this replica trusts to have shared the store it syncs, by their ssh public
    /// keys. Empty (the default) is trust on first use: a new replica takes the participants of
    /// whatever shared history the remote holds, and holds every later fetch to them. Otherwise
    /// a fetch is taken only when the remote's `main` is shared and every commit that makes a
    /// history shared (its own participants in force, those it builds on none) is signed by
    /// one of these keys and names that key an owner; anything else fails the sync with
    /// `StoreError.rejectedCommit(commit:path:rule:)` (as ``ExchangeError/store(_:)``), so a
    /// remote holding a stranger's store, or one whose owner stopped sharing, is refused.
    public var trustedOwners: [ParticipantKey]
    /// Which assets a sync downloads: none (``AssetDownloads/lazy``, the default: the app
    /// fetches what it needs with ``Exchange/fetchAsset(_:)``), every one `main` references
    /// (``AssetDownloads/eager``), or those a predicate picks (``AssetDownloads/eager(where:)``).
    /// Uploads need no policy: a push always uploads the assets of its commits first.
    public var assetDownloads: AssetDownloads
    /// How often a sync may compact the store's history, as the store's `StoreOptions.history`
    /// asks: after a sync that succeeded, when this long has passed since this exchange last
    /// compacted, the history is compacted (`VersionedStore.compactHistory(keeping:)`) and the
    /// new lineage pushed at once, with its archive, under a lease (see <doc:Checkpoints>).
    /// Nil (the default): the exchange never compacts; `pack()` and the app do. Every
    /// compaction makes every other replica adopt the new lineage, so an interval of hours or
    /// days suits most apps. In a shared store only an owner's replica compacts; the others
    /// skip it.
    public var compactionInterval: Duration?
    /// A wait after each megabyte of an asset moved (through a path remote or a Git LFS
    /// server): tests use it to stop a transfer half-way. Zero otherwise.
    package var assetPause: Duration = .zero

    /// Called before each push with the commits about to be pushed; throw to refuse.
    public var validateBeforePush: (@Sendable ([Commit]) throws -> Void)?
    /// Called for every error.
    public var onError: (@Sendable (ExchangeError) -> Void)?
    /// Called after every successful sync.
    public var onFinished: (@Sendable (SyncReport) -> Void)?
    /// Decides merge conflicts; nil uses the store's resolver.
    public var conflictResolver: ConflictResolver?

    /// Options with the defaults: a 10 s connect timeout, a 60 s read/write timeout, 5 push
    /// attempts, backoff from 200 ms up to 60 s, a 30 s wait for another sync of the store,
    /// objects up to the store's record limit (at least 1 MB), 1 GiB and 1,000,000 objects a
    /// fetch, no trusted owners (trust on first use), lazy asset downloads, no hooks, no
    /// compaction.
    public init(
        connectTimeout: Duration = .seconds(10),
        readWriteTimeout: Duration = .seconds(60),
        maximumPushAttempts: Int = 5,
        initialBackoff: Duration = .milliseconds(200),
        maximumBackoff: Duration = .seconds(60),
        busyTimeout: Duration = .seconds(30),
        maximumObjectSize: Int? = nil,
        maximumFetchSize: Int = 1 << 30,
        maximumObjectCount: Int = 1_000_000,
        trustedOwners: [ParticipantKey] = [],
        assetDownloads: AssetDownloads = .lazy,
        validateBeforePush: (@Sendable ([Commit]) throws -> Void)? = nil,
        onError: (@Sendable (ExchangeError) -> Void)? = nil,
        onFinished: (@Sendable (SyncReport) -> Void)? = nil,
        conflictResolver: ConflictResolver? = nil,
        compactionInterval: Duration? = nil
    ) {
        self.connectTimeout = max(.milliseconds(1), connectTimeout)
        self.readWriteTimeout = max(.milliseconds(1), readWriteTimeout)
        self.maximumPushAttempts = max(1, maximumPushAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.busyTimeout = max(.zero, busyTimeout)
        self.maximumObjectSize = maximumObjectSize.map { max(0, $0) }
        self.maximumFetchSize = max(0, maximumFetchSize)
        self.maximumObjectCount = max(0, maximumObjectCount)
        self.trustedOwners = trustedOwners
        self.assetDownloads = assetDownloads
        self.validateBeforePush = validateBeforePush
        self.onError = onError
        self.onFinished = onFinished
        self.conflictResolver = conflictResolver
        self.compactionInterval = compactionInterval.map { max(.zero, $0) }
    }

    /// The delay before retry number `attempt` (1-based): doubling, capped, with ±25% jitter
    /// so replicas that failed together do not retry together.
    func backoff(attempt: Int) -> Duration {
        let base = initialBackoff * Int(1 << min(attempt - 1, 20))
        let capped = min(base, maximumBackoff)
        return capped * Double.random(in: 0.75...1.25)
    }
}
