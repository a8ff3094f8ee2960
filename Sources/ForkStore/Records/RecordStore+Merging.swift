import ForkStoreGit

extension RecordStore {
    /// Merges `source` into `target` record by record.
    ///
    /// The trees are diffed against the merge base, and only records that changed on either
    /// side are decoded, so the cost follows the size of the change, not of the collection.
    /// Per record, with *dominant* the side whose head commit ranks higher:
    /// - changed on one side only → that side;
    /// - changed the same way on both → once;
    /// - added on both with different contents → ``Mergeable/salvaged(with:)`` (or the dominant
    ///   side's record for other types), reported as a conflict;
    /// - edited on one side, deleted on the other → **the edit is kept**, reported as a conflict;
    /// - edited on both → the record's own ``Mergeable`` merge (per property with
    ///   `PropertyMergeable`), or the dominant side's record, reported as a conflict.
    ///
    /// Criss-cross histories merge their bases into a virtual base first; unrelated histories
    /// merge as if the base were empty. Results depend only on the two commits, so replicas
    /// converge.
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
}

/// Merges two commits' record trees, decoding only the records that changed.
struct RecordMerger<Record: Resource> {
    let repository: Repository

    /// The merged tree of our head and theirs, starting from our tree.
    func mergedTree(ours: Commit, theirs: Commit) throws -> ObjectID {
        let (dominant, subordinate) = ours.outranks(theirs) ? (ours, theirs) : (theirs, ours)
        let bases = try mergeBases(ours, theirs)
        // A virtual base is an internal step: its conflicts are not the app's to see.
        let base = try MergeContext.$current.withValue(nil) { try virtualBase(bases) }
        return try merge(
            baseTree: base, dominantTree: dominant.tree, subordinateTree: subordinate.tree,
            dominant: dominant, subordinate: subordinate, onto: ours.tree)
    }

    private func mergeBases(_ one: Commit, _ two: Commit) throws -> [Commit] {
        let ids = try git("finding the merge base") { () throws(GitError) in
            try repository.mergeBases(one.id.objectID, two.id.objectID)
        }
        return try ids.map { try Store<Record>.commit($0, in: repository) }.sorted { $0.outranks($1) }
    }

    /// The base tree: none for unrelated histories, the base's tree, or for several bases the
    /// bases merged pairwise into one, as git's recursive strategy does.
    private func virtualBase(_ bases: [Commit]) throws -> ObjectID? {
        guard let first = bases.first else { return nil }
        var tree = first.tree
        for base in bases.dropFirst() {
            let inner = try virtualBase(try mergeBases(first, base))
            tree = try merge(
                baseTree: inner, dominantTree: tree, subordinateTree: base.tree,
                dominant: first, subordinate: base, onto: tree)
        }
        return tree
    }

    private func merge(
        baseTree: ObjectID?, dominantTree: ObjectID, subordinateTree: ObjectID,
        dominant: Commit, subordinate: Commit, onto target: ObjectID
    ) throws -> ObjectID {
        let (mine, theirs) = try git("diffing the record trees") { () throws(GitError) in
            (try repository.differences(from: baseTree, to: dominantTree),
             try repository.differences(from: baseTree, to: subordinateTree))
        }
        var blobs: [String: (base: ObjectID?, dominant: ObjectID?, subordinate: ObjectID?)] = [:]
        for difference in mine {
            blobs[difference.path, default: (difference.old, difference.old, difference.old)].dominant = difference.new
        }
        for difference in theirs {
            if blobs[difference.path] == nil { blobs[difference.path] = (difference.old, difference.old, difference.old) }
            blobs[difference.path]?.subordinate = difference.new
        }
        var changes: [TreeChange] = []
        let targetIsDominant = target == dominantTree
        for path in blobs.keys.sorted() {
            guard let (base, mineBlob, theirsBlob) = blobs[path] else { continue }
            let result: ObjectID?
            if mineBlob == theirsBlob || theirsBlob == base {
                result = mineBlob
            } else if mineBlob == base {
                result = theirsBlob
            } else {
                result = try mergeRecord(path: path, base: base, dominant: mineBlob, subordinate: theirsBlob,
                                         dominantCommit: dominant, subordinateCommit: subordinate)
            }
            let current = targetIsDominant ? mineBlob : theirsBlob
            guard result != current else { continue }
            changes.append(result.map { .upsert(path: path, blob: $0) } ?? .remove(path: path))
        }
        return try git("writing the merged records") { () throws(GitError) in
            try repository.updatedTree(from: target, applying: changes)
        }
    }

    /// Both sides changed one record differently: decode the three versions and decide.
    private func mergeRecord(
        path: String, base: ObjectID?, dominant: ObjectID?, subordinate: ObjectID?,
        dominantCommit: Commit, subordinateCommit: Commit
    ) throws -> ObjectID? {
        let ancestor = try base.map { try read($0, path: path, commit: dominantCommit) }
        let mine = try dominant.map { try read($0, path: path, commit: dominantCommit) }
        let theirs = try subordinate.map { try read($0, path: path, commit: subordinateCommit) }
        let id = mine?.id ?? theirs?.id ?? ancestor?.id ?? path
        let decided: Record? = try MergeContext.inside(id) { () throws -> Record? in
            switch (ancestor?.record, mine?.record, theirs?.record) {
            case (_, nil, let kept?), (_, let kept?, nil):
                // Edited on one side, deleted on the other: keep the edit.
                return try MergeContext.conflict(
                    strategy: MergeDecision.editWinsOverRemoval.rawValue, ancestor: ancestor?.record,
                    dominant: mine?.record, subordinate: theirs?.record, chosen: kept)
            case (let base?, let dominant?, let subordinate?):
                if let merged = try MergeableDispatch.merged(dominant, subordinate, ancestor: base) {
                    MergeContext.strategyRan("mergeable")
                    return merged
                }
                return try MergeContext.conflict(
                    strategy: MergeDecision.lastWriterWins.rawValue, ancestor: base, dominant: dominant,
                    subordinate: subordinate, chosen: dominant)
            case (nil, let dominant?, let subordinate?):
                if let salvaged = try MergeableDispatch.salvaged(dominant, subordinate) { return salvaged }
                return try MergeContext.conflict(
                    strategy: MergeDecision.salvage.rawValue, ancestor: nil as Record?, dominant: dominant,
                    subordinate: subordinate, chosen: dominant)
            case (_, nil, nil):
                return nil
            }
        }
        guard let decided else { return nil }
        let bytes = try ValueCodec.encode(RecordEnvelope(id: id, record: decided))
        return try git("writing merged record \(id)") { () throws(GitError) in try repository.writeBlob(bytes) }
    }

    private func read(_ blob: ObjectID, path: String, commit: Commit) throws -> RecordEnvelope<Record> {
        let bytes = try git("reading \(path)", object: blob.hex) { () throws(GitError) in try repository.readBlob(blob) }
        let current = try ValueCodec.migrated(bytes, for: Record.self, commit: commit, path: path, member: "record")
        return try ValueCodec.decode(RecordEnvelope<Record>.self, from: current, commit: commit.id, path: path)
    }
}
