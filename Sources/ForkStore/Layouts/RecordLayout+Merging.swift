import ForkStoreGit

extension RecordLayout {
    /// Merges two record trees record by record. The trees are diffed against the base, and
    /// only records that changed on both sides are decoded (see ``RecordMerge``), so the cost
    /// follows the size of the change, not of the collection. With no base (unrelated
    /// histories) every record counts as added, and the merge is recorded as a salvage.
    func merge(
        base: MergeInput?, dominant: MergeInput, subordinate: MergeInput, onto target: ObjectID, in session: StoreSession
    ) throws -> LayoutMerge {
        let baseTree = base?.tree
        let mine = try recordDifferences(from: baseTree, to: dominant.tree, in: session)
        let theirs = try recordDifferences(from: baseTree, to: subordinate.tree, in: session)
        var blobs: [String: (base: ObjectID?, dominant: ObjectID?, subordinate: ObjectID?)] = [:]
        for difference in mine {
            blobs[difference.path, default: (difference.old, difference.old, difference.old)].dominant = difference.new
        }
        for difference in theirs {
            if blobs[difference.path] == nil { blobs[difference.path] = (difference.old, difference.old, difference.old) }
            blobs[difference.path]?.subordinate = difference.new
        }
        var changes: [TreeChange] = []
        let targetIsDominant = target == dominant.tree
        for path in blobs.keys.sorted() {
            guard let (baseBlob, mineBlob, theirsBlob) = blobs[path] else { continue }
            let result: ObjectID?
            if theirsBlob == baseBlob {
                result = mineBlob
            } else if mineBlob == baseBlob {
                result = theirsBlob
            } else if mineBlob == theirsBlob, !(RecordMerge<Record>.mergesItself && baseBlob != nil && mineBlob != nil) {
                result = mineBlob
            } else {
                result = try mergeRecord(
                    path: path, base: baseBlob.map { ($0, base?.origin ?? dominant.origin) },
                    dominant: mineBlob.map { ($0, dominant.origin) }, subordinate: theirsBlob.map { ($0, subordinate.origin) },
                    session: session)
            }
            let current = targetIsDominant ? mineBlob : theirsBlob
            guard result != current else { continue }
            changes.append(result.map { .upsert(path: path, blob: $0) } ?? .remove(path: path))
        }
        // Against no base, or a base without a records folder, every record was added on both sides:
        // the two-way salvage, as for a single value added on both sides.
        let salvaged = try baseTree.map { try session.entry(atPath: RecordPath.root, inTree: $0) == nil } ?? true
        return LayoutMerge(
            tree: try session.updatedTree(target, applying: changes), decision: salvaged ? .salvage : .recordByRecord,
            origin: dominant.origin)
    }

    /// Both sides changed one record differently: decode the three versions and decide.
    private func mergeRecord(
        path: String, base: (ObjectID, DataOrigin)?, dominant: (ObjectID, DataOrigin)?,
        subordinate: (ObjectID, DataOrigin)?, session: StoreSession
    ) throws -> ObjectID? {
        func envelope(_ side: (ObjectID, DataOrigin)?) throws -> RecordEnvelope<Record>? {
            try side.map { (blob, origin) in try read(blob, path: path, origin: origin, session: session) }
        }
        let ancestor = try envelope(base), mine = try envelope(dominant), theirs = try envelope(subordinate)
        let id = mine?.id ?? theirs?.id ?? ancestor?.id ?? path
        let decided = try MergeContext.inside(id) {
            try RecordMerge<Record>.merge(ancestor: ancestor?.record, dominant: mine?.record, subordinate: theirs?.record)
        }
        guard let decided else { return nil }
        let bytes = try ValueCodec.encode(RecordEnvelope(id: id, modelVersion: model.version, record: decided))
        return try session.writeBlob(bytes, path: path)
    }
}
