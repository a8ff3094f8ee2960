import Foundation
import Logging

/// How a store writes: durability, the name on its commits, retries and logging.
public struct StoreOptions: Sendable {
    /// When true, libgit2 fsyncs objects and refs before a write returns, so an acknowledged
    /// commit also survives power loss, at about twice the cost per commit. libgit2 keeps this
    /// as a process-wide setting: once one store turns it on, every store in the process fsyncs.
    public var fsync: Bool

    /// The author and committer name written into commits.
    public var authorName: String
    /// The author and committer email written into commits.
    public var authorEmail: String

    /// How many times a write is retried on top of another writer's commit before giving up
    /// with ``StoreError/concurrentUpdate(fork:attempts:)``.
    public var maximumWriteAttempts: Int

    /// The largest encoded record a ``RecordStore`` accepts, in bytes (default 1 MB). A larger
    /// record is refused with ``StoreError/recordTooLarge(id:size:limit:)`` before anything is
    /// written.
    public var maximumRecordSize: Int = 1_000_000

    /// The largest asset a store adds or accepts a reference to, in bytes (default 4 GiB). A
    /// larger file is refused with ``StoreError/assetTooLarge(size:limit:)`` as it is read, as
    /// is a write of a value or record whose reference names a larger size; a record arriving
    /// from a remote with such a reference is refused (``StoreError/rejectedCommit(commit:path:rule:)``)
    /// before any byte of the asset is fetched.
    public var maximumAssetSize: Int = 1 << 32

    /// When the object database holds this many loose objects (one file each), a write packs
    /// them into one pack file. Checked on each process's first write and every 32nd after it,
    /// so stores written by many short processes stay packed. Set to `Int.max` to pack only when
    /// `pack()` is called.
    public var packThreshold: Int = 128

    /// Called for every conflict a merge meets, unless a merge names its own resolver.
    /// Nil keeps every strategy's decision.
    public var conflictResolver: ConflictResolver?

    /// Where the store logs retries, merges and recovered lock files (debug and notice levels).
    public var logger: Logger

    /// What a merge does when one side removed something (a whole value, a record, a
    /// dictionary key) that the other side edited. Default ``RemovalPolicy/latestWins``.
    public var removalPolicy: RemovalPolicy = .latestWins

    /// How far ahead of this machine's wall clock another commit's clock may run before this
    /// store's clock stops following it: a commit on top of it counts it as only this far
    /// ahead (and says so in a `Clock-Clamped` trailer). Default one second.
    ///
    /// The skew is also how long one commit from a clock far in the future (broken or hostile)
    /// can hold every replica's clock still, ordering concurrent edits by replica id instead of
    /// by time; a one-day skew let it do so for a day. Hybrid logical clocks assume a bound on
    /// skew, and deployments choose it near what clock synchronisation achieves: CockroachDB's
    /// default maximum offset is 500 ms; devices that set their time from the network stay
    /// well within a second. A clock further off costs little: its own commits still order by
    /// what they claim, and only the clocks of commits written after them stop following it.
    public var maximumClockSkew: Duration = .seconds(1)

    /// The key that signs every commit this store writes (git's ssh signature format). A shared
    /// store's peers take in only commits signed by a participant who may write; see
    /// ``Participant``.
    public var signingKey: SigningKey?

    /// The wall clock the store's hybrid logical clock follows. Replace it in tests to step
    /// time back or skew a replica; the store's clock stays monotonic whatever it returns.
    public var wallClock: @Sendable () -> Date = { Date() }

    /// How much history the store keeps: ``HistoryPolicy/keepEverything`` (the default), or
    /// a horizon of days or commits before which ``VersionedStore/pack()-5bhjq`` replaces the
    /// history by a checkpoint (see <doc:HistoryHorizon>). In a shared store only an owner
    /// (a store opened with an owner's ``signingKey``) compacts; other replicas leave it to
    /// an owner.
    public var history: HistoryPolicy = .keepEverything

    /// How old a pack or loose object must be before freeing dropped history may remove it:
    /// another process may have written objects it has not referenced yet. Benchmarks and
    /// tests that free history at once set it to 0.
    package var pruneGracePeriod: TimeInterval = 600

    /// Options with the defaults: no fsync, `ForkStore <forkstore@localhost>`, 16 write attempts.
    public init(
        fsync: Bool = false,
        authorName: String = "ForkStore",
        authorEmail: String = "forkstore@localhost",
        maximumWriteAttempts: Int = 16,
        conflictResolver: ConflictResolver? = nil,
        logger: Logger = Logger(label: "ForkStore")
    ) {
        self.conflictResolver = conflictResolver
        self.fsync = fsync
        self.authorName = authorName
        self.authorEmail = authorEmail
        self.maximumWriteAttempts = max(1, maximumWriteAttempts)
        self.logger = logger
    }
}
