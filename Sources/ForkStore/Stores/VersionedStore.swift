/// What every store shares, whatever it holds: forks, history, merges, the change stream,
/// history replay and packing. ``Store`` and ``RecordStore`` conform, so the two offer the
/// same fork, history and merge API, written once.
///
/// ```swift
/// func mergePhoneEdits(into store: some VersionedStore) throws {
///     let phone = try Fork("phone")
///     if try store.hasFork(phone) {
///         try store.mergeIntoMain(from: phone)
///     }
/// }
/// ```
///
/// Only ForkStore's own stores conform: the requirement is the store's ``StoreHandle``, which
/// only ForkStore makes.
public protocol VersionedStore: Sendable {
    /// The store's opaque handle on the machinery underneath it, through which the API below
    /// reaches the repository. It has no public members; use the store's API.
    var handle: StoreHandle { get }
}

/// The opaque handle a ``VersionedStore`` holds on its machinery: the repository session and
/// its lock, the cross-process writer lock, forks, history, merges and the change stream.
///
/// It has no public members and no public initializer: only ``Store`` and ``RecordStore`` make
/// one, and a type that returns another store's handle acts as that store.
public struct StoreHandle: Sendable {
    /// The engine every call of the store goes through.
    package let engine: StoreEngine

    package init(_ engine: StoreEngine) {
        self.engine = engine
    }
}

extension VersionedStore {
    /// The engine under the store, for ForkStore's other modules (the exchange, the queries).
    package var engine: StoreEngine { handle.engine }

    /// The store's folder: the bare repository.
    public var path: String { engine.path }

    /// The options the store was opened with.
    public var options: StoreOptions { engine.options }

    // MARK: Forks

    /// Every fork of the store, sorted by name.
    public func forks() throws -> [Fork] { try engine.forks() }

    /// Whether a fork exists.
    public func hasFork(_ fork: Fork) throws -> Bool { try engine.hasFork(fork) }

    /// Creates a fork at a commit, by default at `main`'s head.
    ///
    /// - Throws: ``StoreError/forkAlreadyExists(_:)`` when the name is taken,
    ///   ``StoreError/commitNotFound(_:)`` for an unknown commit, and
    ///   ``StoreError/protectedFork(_:)`` for `cloud`, which only the exchange writes.
    @discardableResult
    public func createFork(_ fork: Fork, at commit: CommitID? = nil) throws -> Commit {
        try engine.createFork(fork, at: commit)
    }

    /// Creates a fork at another fork's head.
    @discardableResult
    public func createFork(_ fork: Fork, from source: Fork) throws -> Commit {
        try engine.createFork(fork, at: engine.head(of: source).id)
    }

    /// Deletes a fork. Its commits stay reachable from any fork that merged them.
    /// `main` and `cloud` cannot be deleted (``StoreError/protectedFork(_:)``).
    public func deleteFork(_ fork: Fork) throws { try engine.deleteFork(fork) }

    // MARK: History

    /// The newest commit of a fork.
    public func head(of fork: Fork = .main) throws -> Commit { try engine.head(of: fork) }

    /// A fork's commits, newest first (topological order), at most `limit` of them.
    public func history(of fork: Fork = .main, limit: Int? = nil) throws -> [Commit] {
        try engine.history(of: fork, limit: limit)
    }

    /// One commit, by id.
    public func commit(_ id: CommitID) throws -> Commit { try engine.commit(id) }

    /// Finds a commit by its full id or a unique prefix of at least 4 hexadecimal digits.
    public func commit(matching text: String) throws -> Commit { try engine.commit(matching: text) }

    /// How many commits `fork` has that `other` lacks (`ahead`), and the reverse (`behind`).
    public func divergence(of fork: Fork, from other: Fork) throws -> (ahead: Int, behind: Int) {
        try engine.divergence(of: fork, from: other)
    }

    /// A stream of every change this store object makes: commits, merges, fast-forwards,
    /// created and deleted forks, and `cloud` moved by an exchange. Each call returns a new
    /// stream; it ends when the store is released. Changes made by other processes are not
    /// seen here.
    public func changes() -> AsyncStream<StoreChange> { engine.changes() }

    /// Decodes every commit of every fork, oldest first, with the current model and its
    /// migrations, stopping at the first that fails. For a record collection, each commit's
    /// added and changed records are decoded. Use it to prove a migration before shipping it;
    /// the `ForkStoreMigrationTesting` kit wraps it for test suites.
    public func replayHistory() throws -> ReplayReport { try engine.replayHistory() }

    /// Packs every loose object now and rolls the packs into as few as it can (packs of at
    /// most 131,072 objects, which bounds its memory), as `git gc` would, without
    /// holding up writers while it copies. Writes keep the store packed on their own (see
    /// ``StoreOptions/packThreshold``); call this before archiving or copying a store. Returns
    /// how many loose objects were packed.
    ///
    /// It then removes the assets nothing needs any more, as `collectAssets()` does.
    ///
    /// Under a ``StoreOptions/history`` policy other than ``HistoryPolicy/keepEverything``, it
    /// first compacts `main`'s history as ``VersionedStore/compactHistory(keeping:)-1nkzj`` does; when the policy
    /// drops archives, the old history is then freed (every object a reference reaches is
    /// repacked, as `git gc --prune=now` does).
    @discardableResult
    public func pack() throws -> Int { try engine.pack() }

    // MARK: History horizon

    /// Replaces `main`'s history before the horizon `policy` sets (nil: the store's
    /// ``StoreOptions/history``) by a checkpoint: a root commit with the horizon commit's data,
    /// onto which every later commit is replayed with the same data and message. The old
    /// history stays under an archive ref unless the policy drops it; forks that branched
    /// after the horizon move onto the new history. Nothing any fork holds changes. Returns
    /// nil when the history is within the policy.
    ///
    /// In a shared store only an owner compacts: open the store with an owner's
    /// ``StoreOptions/signingKey``; the checkpoint and the replayed commits are signed with it.
    /// See <doc:HistoryHorizon>.
    @discardableResult
    public func compactHistory(keeping policy: HistoryPolicy? = nil) throws -> Compaction? {
        try engine.compactHistory(policy)
    }

    /// Replaces `main`'s history before `horizon`, a commit on its first-parent history, by a
    /// checkpoint of it, as ``VersionedStore/compactHistory(keeping:)-1nkzj`` does for the horizon a policy sets.
    /// Returns nil when `horizon` is `main`'s first commit: there is nothing before it.
    @discardableResult
    public func compact(at horizon: CommitID) throws -> Compaction? {
        try engine.checkpoint(.main, at: horizon)
    }

    /// The checkpoint at the root of a fork's history (its ``Commit/checkpointOf`` names the
    /// horizon); nil when the fork's history was never compacted.
    public func checkpoint(of fork: Fork = .main) throws -> Commit? { try engine.checkpoint(of: fork) }

    // MARK: Sharing

    /// The participants the store is shared with, on a fork's head; empty when it is not shared.
    public func participants(in fork: Fork = .main) throws -> [Participant] { try engine.participants(in: fork) }

    /// Replaces the participants on `main` in one commit; an empty list stops sharing. Once a
    /// store has participants, its exchange takes in only commits signed by a participant who
    /// may write, and changes to the participants only when signed by an owner, so open the
    /// store with an owner's ``StoreOptions/signingKey`` to change them.
    ///
    /// - Throws: ``StoreError/encodingFailed(reason:)`` when the list names a key twice.
    @discardableResult
    public func setParticipants(_ participants: [Participant], message: String = "Change participants") throws -> Commit {
        try engine.setParticipants(participants, message: message)
    }

    // MARK: Merging

    /// Merges `source` into `target`.
    ///
    /// - If `target` already contains `source`'s head: ``MergeOutcome/upToDate``.
    /// - If `target` has nothing of its own: it fast-forwards to `source`'s head.
    /// - Otherwise a merge commit with parents `[target, source]` holds the merged content:
    ///   a single value merged whole (see ``Mergeable`` and ``MergeDecision``), a record
    ///   collection merged record by record. Its trailers name the fork merged from and the
    ///   decision taken.
    ///
    /// The result depends only on the two commits, never on which fork or replica runs the
    /// merge, so replicas that merge each other's work converge. A merge that would bring in a
    /// commit of an unknown model version is refused before anything is written.
    ///
    /// - Parameters:
    ///   - source: the fork whose work is brought in.
    ///   - target: the fork that receives it.
    ///   - resolver: called for every conflict; defaults to ``StoreOptions/conflictResolver``.
    ///     See ``ConflictResolver``.
    @discardableResult
    public func merge(
        from source: Fork, into target: Fork, resolvingConflicts resolver: ConflictResolver? = nil
    ) throws -> MergeOutcome {
        try engine.merge(from: source, into: target, resolvingConflicts: resolver)
    }

    /// Merges a fork's work into `main`.
    @discardableResult
    public func mergeIntoMain(from fork: Fork, resolvingConflicts resolver: ConflictResolver? = nil) throws -> MergeOutcome {
        try merge(from: fork, into: .main, resolvingConflicts: resolver)
    }

    /// Brings `main`'s work into a fork.
    @discardableResult
    public func mergeFromMain(into fork: Fork, resolvingConflicts resolver: ConflictResolver? = nil) throws -> MergeOutcome {
        try merge(from: .main, into: fork, resolvingConflicts: resolver)
    }

    /// Merges every other fork into `target` (by default `main`), in name order; `cloud` is
    /// left out: only the exchange merges it. Returns each fork's outcome.
    @discardableResult
    public func mergeAllForks(
        into target: Fork = .main, resolvingConflicts resolver: ConflictResolver? = nil
    ) throws -> [Fork: MergeOutcome] {
        var outcomes: [Fork: MergeOutcome] = [:]
        for fork in try forks() where fork != target && fork != .cloud {
            outcomes[fork] = try merge(from: fork, into: target, resolvingConflicts: resolver)
        }
        return outcomes
    }

    /// Merges every fork into `main`, then `main` back into every fork, so all forks end
    /// with the same content. `cloud` is left alone: only the exchange writes it.
    public func syncAllForks() throws { try engine.syncAllForks() }
}
