import ForkStoreGit

/// What the checks of one fetch remember from commit to commit, so each tree is read once and
/// each distinct blob checked once however many commits bring it (FORMAT.md §8).
///
/// Each commit is checked against its first parent, and the commits one after the other
/// (newest first): the trees one commit and its parent differ in are, mostly, the trees the
/// next commit checked differs in from its own parent. So the trees read for a commit are kept
/// while the next one is checked, and no longer: memory stays at what two commits change,
/// whatever the length of the history. A blob a later commit brings back (a record saved
/// again as it was, a revert) is not checked again: what it decodes to depends only on its
/// bytes and the model version it was written with, which are the key.
final class IncomingCheckMemory {
    /// Trees read for the commit being checked, and for the one checked before it.
    private var current: [ObjectID: [TreeEntry]] = [:], previous: [ObjectID: [TreeEntry]] = [:]
    /// Checked record blobs: the id each holds, by blob and model version.
    private var records: [RecordKey: String] = [:]
    /// About how many bytes the trees kept for the next commit and the blobs remembered take;
    /// beyond ``maximumTreeBytes`` and ``maximumRecordBytes``, they are read or checked again.
    private var treeBytes = 0, recordBytes = 0
    let maximumTreeBytes: Int, maximumRecordBytes: Int
    /// The model versions the fetch's packs were checked ahead for (``ContentLayout/checkAhead(_:limits:memory:in:)``).
    private var checkedAhead: Set<Int?> = []
    /// How many record blobs the check ahead found good, and how many the walk checked itself
    /// (neither checked ahead nor earlier in the walk).
    var recordsCheckedAhead = 0, recordsCheckedByWalk = 0

    /// The packs of the repository the walk reads, opened on its first tree.
    private var fetchedTrees: (repository: Repository, trees: FetchedTrees?)?

    private struct RecordKey: Hashable {
        var blob: ObjectID, modelVersion: Int?
    }

    /// 16 MB for each by default, a phone's share of a first sync: 100,000 remembered record
    /// blobs take about 9 MB, and the trees of a 100,000-record commit about 8 MB.
    init(maximumTreeBytes: Int = 16 << 20, maximumRecordBytes: Int = 16 << 20) {
        self.maximumTreeBytes = maximumTreeBytes
        self.maximumRecordBytes = maximumRecordBytes
    }

    /// Whether the fetch's packs are still to be checked ahead for `modelVersion`; true once.
    /// (A sync that takes a checkpoint with its archive checks two lineages from one fetch.)
    func startsCheckAhead(for modelVersion: Int?) -> Bool {
        checkedAhead.insert(modelVersion).inserted
    }

    /// Notes that the fetch's packs need no check ahead for `modelVersion`: every blob of
    /// them was read for it while it arrived.
    func checkedAheadWhileArriving(for modelVersion: Int?) {
        checkedAhead.insert(modelVersion)
    }

    /// Moves on to the next commit: the trees read for the last one stay available to it.
    func nextCommit() {
        previous = current
        current = [:]
        treeBytes = 0
    }

    /// The entries of a tree, read through `read` unless it was read for this commit or the
    /// one checked before it; kept for the next commit while they fit.
    func entries(of tree: ObjectID, _ read: (ObjectID) throws(StoreError) -> [TreeEntry]) throws(StoreError) -> [TreeEntry] {
        if let entries = current[tree] { return entries }
        let entries: [TreeEntry]
        if let kept = previous[tree] { entries = kept } else { entries = try read(tree) }
        let cost = Self.cost(of: entries)
        if treeBytes + cost <= maximumTreeBytes {
            current[tree] = entries
            treeBytes += cost
        }
        return entries
    }

    /// The trees of `repository`'s packs, trees of at most `maximumSize` bytes read there
    /// (``FetchedTrees``); nil when they cannot be. Opened on the first call for a repository,
    /// with that call's `maximumSize`.
    func fetchedTrees(in repository: Repository, maximumSize: Int) -> FetchedTrees? {
        if fetchedTrees?.repository !== repository { fetchedTrees = (repository, FetchedTrees(repository, maximumSize: maximumSize)) }
        return fetchedTrees?.trees
    }

    /// Unmaps the packs ``fetchedTrees(in:maximumSize:)`` opened: a walk is over, and what
    /// follows (the objects moving into the store) should not find them still resident.
    func closeFetchedTrees() {
        fetchedTrees = nil
    }

    /// The record id a blob was found to hold when checked for this model version, if it was.
    func checkedRecord(_ blob: ObjectID, modelVersion: Int?) -> String? {
        records[RecordKey(blob: blob, modelVersion: modelVersion)]
    }

    /// The blobs found to hold a record for data of `modelVersion`.
    func checkedBlobs(modelVersion: Int?) -> Set<ObjectID> {
        Set(records.keys.lazy.filter { $0.modelVersion == modelVersion }.map(\.blob))
    }

    func remember(record id: String, in blob: ObjectID, modelVersion: Int?) {
        let cost = Self.entryOverhead + MemoryLayout<RecordKey>.stride + id.utf8.count
        guard recordBytes + cost <= maximumRecordBytes else { return }
        if records.updateValue(id, forKey: RecordKey(blob: blob, modelVersion: modelVersion)) == nil { recordBytes += cost }
    }

    /// A hash table's own share of an entry, and a string's or array's heap header.
    private static let entryOverhead = 48

    /// About what a tree's entries take: each entry and its name, the array and the key.
    private static func cost(of entries: [TreeEntry]) -> Int {
        entries.reduce(2 * entryOverhead) { $0 + MemoryLayout<TreeEntry>.stride + $1.name.utf8.count }
    }
}

/// What a layout's check of one incoming commit found: the trees and blobs it walked (what the
/// commit adds to a store that holds its parent) and the trailers the layout would write for
/// the commit's tree (a record count), which the commit's own must match where it has them.
struct CheckedTree {
    var walked: [ObjectID]
    var trailers: [Trailer]
    /// Record files found new or changed and left to check, in the order found (their path
    /// and entry), and what broke a rule of the tree after them.
    var deferred: [(path: String, entry: TreeEntry)] = []
    var failure: (any Error)?

    /// Whether nothing of the commit's check is left.
    var isComplete: Bool { deferred.isEmpty && failure == nil }
}
