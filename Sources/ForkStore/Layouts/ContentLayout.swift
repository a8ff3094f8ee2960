import ForkStoreGit

/// How a store's content is laid out in a commit's tree, and how two trees of that layout
/// merge: one value (``ValueLayout``) or a record collection (``RecordLayout``).
///
/// The engine runs everything a layout does not know about (forks, locks, stamps, merge bases,
/// commits); a layout only reads, writes and merges trees.
protocol ContentLayout: Sendable {
    /// What the manifest says the store holds.
    var kind: Manifest.Kind { get }
    /// The resource type's model version and migration plan.
    var model: StoreModel { get }

    /// The merged tree of `dominant` and `subordinate`, starting from `target` (one of the
    /// two): a three-way merge against `base`, or with no base (unrelated histories) the
    /// two-way salvage. Conflicts go to the current ``MergeContext``.
    func merge(
        base: MergeInput?, dominant: MergeInput, subordinate: MergeInput, onto target: ObjectID,
        in session: StoreSession
    ) throws -> LayoutMerge

    /// Trailers this layout adds to a commit of `tree` whose first parent is `parent` (a record
    /// collection's count).
    func trailers(forTree tree: ObjectID, after parent: Commit?, in session: StoreSession) throws -> [Trailer]

    /// Decodes what `commit` holds or changed with the current model and its migrations, for
    /// history replay; returns how many values or records were decoded.
    func replay(_ commit: Commit, in session: StoreSession) throws -> Int

    /// Checks a commit that arrived from elsewhere against the format: its tree holds only
    /// what this layout writes, and every blob that differs from `parent`'s is a valid,
    /// canonical, decodable value or record within `limits` (its size and its asset
    /// references' sizes). Returns the trees and blobs
    /// that differ from the parent's, which it walked: what the commit adds to a store that
    /// holds the parent (some may be there already); and the trailers the layout writes for
    /// the tree. `memory` carries what the checks of earlier commits of the same fetch read.
    ///
    /// - Throws: ``StoreError/rejectedCommit(commit:path:rule:)`` naming the path and the rule,
    ///   or ``StoreError/unknownModelVersion(found:known:commit:)`` for data of a newer model.
    ///
    /// With `deferringRecords`, a layout may leave the record files it finds to
    /// ``checkDeferredRecords(of:in:limits:memory:session:)`` (while a check ahead runs): the
    /// tree returned then lists them, and holds what broke a rule of the tree after them
    /// rather than throwing it, so the commit's first failure stays the one reported.
    func validate(
        _ commit: Commit, against parent: Commit?, limits: BlobLimits, memory: IncomingCheckMemory, deferringRecords: Bool,
        in session: StoreSession
    ) throws -> CheckedTree

    /// Checks the record files ``validate(_:against:limits:memory:deferringRecords:in:)`` left,
    /// in the order it found them, then throws what broke the tree's rules after them.
    func checkDeferredRecords(
        of checked: CheckedTree, in commit: Commit, limits: BlobLimits, memory: IncomingCheckMemory, session: StoreSession
    ) throws -> CheckedTree

    /// Starts checking what it can of a fetch's `blobs`, on other threads, for data written as
    /// `origin` says, while the fetch arrives or its commits are walked: a head start, never a
    /// verdict (what fails or is not reached is checked by the walk). Nil when the layout has
    /// nothing to check ahead.
    func startCheckAhead(_ origin: DataOrigin, limits: BlobLimits, reading blobs: FetchedBlobs) -> IncomingCheckAhead?
}

extension ContentLayout {
    func checkDeferredRecords(
        of checked: CheckedTree, in commit: Commit, limits: BlobLimits, memory: IncomingCheckMemory, session: StoreSession
    ) throws -> CheckedTree {
        if let failure = checked.failure { throw failure }
        return checked
    }

    func startCheckAhead(_ origin: DataOrigin, limits: BlobLimits, reading blobs: FetchedBlobs) -> IncomingCheckAhead? { nil }

    /// The check ahead of the fetched packs (``startCheckAhead(_:limits:reading:)``), waited
    /// for, what passed told to `memory`.
    func checkAhead(_ origin: DataOrigin, limits: BlobLimits, memory: IncomingCheckMemory, in session: StoreSession) {
        startCheckAhead(origin, limits: limits, reading: .packs(session.repository.packs(), skipping: []))?.finish(into: memory)
    }
}

/// One side of a merge: a tree and where its data came from.
struct MergeInput {
    let tree: ObjectID
    let origin: DataOrigin

    init(_ commit: Commit) {
        tree = commit.tree
        origin = DataOrigin(commit)
    }

    init(tree: ObjectID, origin: DataOrigin) {
        self.tree = tree
        self.origin = origin
    }
}

/// What a layout's merge produced.
struct LayoutMerge {
    let tree: ObjectID
    /// How the whole merge was decided, for the `Merge-Strategy` trailer.
    let decision: MergeDecision
    /// Where the merged tree's data counts as coming from, when it is merged again (a
    /// virtual base folded with the next base).
    let origin: DataOrigin
}
