import ForkStoreGit

/// A checkpoint K of a commit C (Schema/FORMAT.md §16): a root commit whose tree is C's,
/// authored and committed as C was committed, whose message names C in a `Checkpoint-Of`
/// trailer and carries C's stamps and record count. It stands in for C's history: compaction
/// replays the commits after C onto it, and keeps the old lineage under an archive ref.
///
/// Everything in K comes from C, so two unsigned replicas checkpointing the same C write the
/// same object.
enum Checkpoint {
    /// Where archive refs live: `refs/forkstore/archive/<K full hex>` names the old head
    /// that the lineage rooted in K replaced.
    static let archivePrefix = "refs/forkstore/archive/"

    /// The archive ref of the checkpoint `checkpoint`.
    static func archiveReference(of checkpoint: CommitID) -> String {
        archivePrefix + checkpoint.hex
    }

    /// Where the losing heads of adoptions are kept: `refs/forkstore/archive/carried/<L full
    /// hex>` names a head whose changes a carry-over took onto another lineage, so its history
    /// stays as archived as the old history a compaction replaced.
    static let carriedPrefix = archivePrefix + "carried/"

    /// The ref that keeps `head`, the losing head of an adoption.
    static func carriedReference(of head: CommitID) -> String {
        carriedPrefix + head.hex
    }

    /// The checkpoint an archive ref names; nil when `name` is not an archive ref.
    static func checkpoint(ofArchive name: String) -> CommitID? {
        guard name.hasPrefix(archivePrefix) else { return nil }
        let hex = String(name.dropFirst(archivePrefix.count))
        return isFullLowercaseHex(hex) ? CommitID(hex) : nil
    }

    /// The stamp trailers K copies from C, in this order, as C has them.
    static let copiedStamps = [TrailerKey.modelVersion, TrailerKey.formatVersion, TrailerKey.lamport, TrailerKey.clock, TrailerKey.replica]

    /// K's message: `Checkpoint of <C>`, C's stamp trailers, the record count (C's, or
    /// `countedRecords` when C has none; a value store has none), `Checkpoint-Of`, and
    /// `Checkpoint-After` when C's history is rooted in a checkpoint (`after`).
    static func message(of horizon: Commit, countedRecords: [Trailer], after: CommitID?) -> String {
        var trailers: [Trailer] = []
        for key in copiedStamps {
            if let value = horizon.trailers.values(forKey: key).first { trailers.append(Trailer(key: key, value: value)) }
        }
        if let count = horizon.trailers.values(forKey: TrailerKey.recordCount).first {
            trailers.append(Trailer(key: TrailerKey.recordCount, value: count))
        } else {
            trailers += countedRecords
        }
        trailers.append(Trailer(key: TrailerKey.checkpointOf, value: horizon.id.hex))
        if let after { trailers.append(Trailer(key: TrailerKey.checkpointAfter, value: after.hex)) }
        return CommitMessage.compose("Checkpoint of \(horizon.id.hex)", trailers: trailers)
    }

    /// K's content: C's tree, C's committer as author and committer, `message`. Nil when C's
    /// content has no committer field.
    static func content(of horizon: Commit, horizonContent: CommitContent, message: String) -> CommitContent? {
        guard let committer = horizonContent.value(of: "committer") else { return nil }
        let fields = [
            CommitContent.Field(name: Array("tree".utf8), value: Array(horizon.tree.hex.utf8)),
            CommitContent.Field(name: Array("author".utf8), value: committer),
            CommitContent.Field(name: Array("committer".utf8), value: committer),
            CommitContent.Field(name: Array("encoding".utf8), value: Array("UTF-8".utf8)),
        ]
        return CommitContent(fields: fields, message: Array(message.utf8))
    }

    /// Why `commit`, which names a horizon in `Checkpoint-Of`, is not a checkpoint of it; nil
    /// when it is. `horizonTree` is C's tree when this store holds C (a replica that never had
    /// the old history checks only the rest).
    static func problem(of commit: Commit, horizonTree: ObjectID?) -> String? {
        guard commit.checkpointOf != nil else { return nil }
        if !commit.parents.isEmpty { return "it is a checkpoint (Checkpoint-Of) with parents; a checkpoint is a root commit" }
        if let horizonTree, horizonTree != commit.tree {
            return "it is a checkpoint of \(commit.checkpointOf?.short ?? "") whose tree is not that commit's tree"
        }
        return nil
    }

    /// 40 lowercase hexadecimal digits: the one written form of a `Checkpoint-Of` value.
    static func isFullLowercaseHex(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
