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
    func validate(
        _ commit: Commit, against parent: Commit?, limits: BlobLimits, memory: IncomingCheckMemory, in session: StoreSession
    ) throws -> CheckedTree

    /// Before ``validate(_:against:limits:memory:in:)`` walks the fetched commits, checks what
    /// it can of the fetched packs' blobs at once, on every core, and tells `memory` what
    /// passed for data written as `origin` says: a head start, never a verdict (what fails or
    /// is not reached here is checked by the walk).
    func checkAhead(_ origin: DataOrigin, limits: BlobLimits, memory: IncomingCheckMemory, in session: StoreSession)
}

extension ContentLayout {
    func checkAhead(_ origin: DataOrigin, limits: BlobLimits, memory: IncomingCheckMemory, in session: StoreSession) {}
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
