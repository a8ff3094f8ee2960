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
    /// At most this many trees are kept for the next commit, and at most
    /// ``maximumRecords`` blobs remembered: beyond, they are read or checked again.
    let maximumTrees: Int, maximumRecords: Int

    private struct RecordKey: Hashable {
        var blob: ObjectID, modelVersion: Int?
    }

    init(maximumTrees: Int = 200_000, maximumRecords: Int = 2_000_000) {
        self.maximumTrees = maximumTrees
        self.maximumRecords = maximumRecords
    }

    /// Moves on to the next commit: the trees read for the last one stay available to it.
    func nextCommit() {
        previous = current
        current = [:]
    }

    /// The entries of a tree, read through `read` unless it was read for this commit or the
    /// one checked before it; kept for the next commit.
    func entries(of tree: ObjectID, _ read: (ObjectID) throws(StoreError) -> [TreeEntry]) throws(StoreError) -> [TreeEntry] {
        if let entries = current[tree] { return entries }
        let entries: [TreeEntry]
        if let kept = previous[tree] { entries = kept } else { entries = try read(tree) }
        if current.count < maximumTrees { current[tree] = entries }
        return entries
    }

    /// The record id a blob was found to hold when checked for this model version, if it was.
    func checkedRecord(_ blob: ObjectID, modelVersion: Int?) -> String? {
        records[RecordKey(blob: blob, modelVersion: modelVersion)]
    }

    func remember(record id: String, in blob: ObjectID, modelVersion: Int?) {
        guard records.count < maximumRecords else { return }
        records[RecordKey(blob: blob, modelVersion: modelVersion)] = id
    }
}

/// What a layout's check of one incoming commit found: the trees and blobs it walked (what the
/// commit adds to a store that holds its parent) and the trailers the layout would write for
/// the commit's tree (a record count), which the commit's own must match where it has them.
struct CheckedTree {
    var walked: [ObjectID]
    var trailers: [Trailer]
}
