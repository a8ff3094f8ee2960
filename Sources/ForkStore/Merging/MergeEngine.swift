import ForkStoreGit

/// Computes the merged value of two commits: merge base(s) from libgit2, a virtual base for
/// criss-cross histories, the two-way salvage for unrelated ones, and a three-way merge of
/// the decoded values. Runs inside the store's lock.
struct MergeEngine<Value: Resource> {
    let repository: Repository

    /// A value together with its canonical JSON, which decides equality.
    struct Version {
        let value: Value?
        let json: [UInt8]?

        init(_ value: Value?) throws(StoreError) {
            self.value = value
            self.json = try value.map { (value) throws(StoreError) in try ValueCodec.encode(value) }
        }
    }

    /// The merged value of our head and theirs, how it was decided, and what conflicted.
    func merge(
        ours: Commit, theirs: Commit, resolver: ConflictResolver?
    ) throws -> (version: Version, decision: MergeDecision, conflicts: [MergeConflict], strategies: [String]) {
        let (merged, conflicts, strategies) = try MergeContext.collecting(
            dominantIsOurs: ours.outranks(theirs), resolver: resolver
        ) { try merge(ours, theirs) }
        return (merged.version, merged.decision, conflicts, strategies)
    }

    private func merge(_ one: Commit, _ two: Commit) throws -> (version: Version, decision: MergeDecision) {
        let (dominant, subordinate) = one.outranks(two) ? (one, two) : (two, one)
        let dominantVersion = try version(of: dominant)
        let subordinateVersion = try version(of: subordinate)
        let bases = try mergeBases(dominant, subordinate)
        guard !bases.isEmpty else {
            return try salvage(dominantVersion, subordinateVersion)
        }
        // A virtual base is an internal step: its conflicts are not the app's to see.
        let ancestor = try MergeContext.$current.withValue(nil) { try virtualBase(of: bases) }
        return try threeWay(ancestor: ancestor, dominant: dominantVersion, subordinate: subordinateVersion)
    }

    private func version(of commit: Commit) throws -> Version {
        try Version(Store<Value>.snapshot(of: commit, in: repository).value)
    }

    /// Merge bases ordered by rank, highest first, so every replica folds them the same way.
    private func mergeBases(_ one: Commit, _ two: Commit) throws -> [Commit] {
        let ids: [ObjectID]
        do {
            ids = try repository.mergeBases(one.id.objectID, two.id.objectID)
        } catch {
            throw StoreError(error, during: "finding the merge base")
        }
        return try ids.map { id in try Store<Value>.commit(id, in: repository) }
            .sorted { $0.outranks($1) }
    }

    /// With one merge base, its value. With several (a criss-cross), the bases merged into one
    /// virtual ancestor, as git's recursive strategy does.
    private func virtualBase(of bases: [Commit]) throws -> Version {
        var accumulated = try version(of: bases[0])
        for base in bases.dropFirst() {
            let innerBases = try mergeBases(bases[0], base)
            let next = try version(of: base)
            if innerBases.isEmpty {
                accumulated = try salvage(accumulated, next).version
            } else {
                accumulated = try threeWay(
                    ancestor: try virtualBase(of: innerBases), dominant: accumulated, subordinate: next
                ).version
            }
        }
        return accumulated
    }

    private func threeWay(
        ancestor: Version, dominant: Version, subordinate: Version
    ) throws -> (version: Version, decision: MergeDecision) {
        if dominant.json == subordinate.json { return (dominant, .identical) }
        if subordinate.json == ancestor.json { return (dominant, .oneSided) }
        if dominant.json == ancestor.json { return (subordinate, .oneSided) }
        switch (ancestor.value, dominant.value, subordinate.value) {
        case (_, nil, .some):
            return (try reported(.editWinsOverRemoval, ancestor, dominant, subordinate, chosen: subordinate), .editWinsOverRemoval)
        case (_, .some, nil):
            return (try reported(.editWinsOverRemoval, ancestor, dominant, subordinate, chosen: dominant), .editWinsOverRemoval)
        case (.some(let base), .some(let mine), .some(let theirs)):
            guard let merged = try MergeableDispatch.merged(mine, theirs, ancestor: base) else {
                return (try reported(.lastWriterWins, ancestor, dominant, subordinate, chosen: dominant), .lastWriterWins)
            }
            return (try Version(merged), .mergeable)
        case (nil, .some, .some):
            return try salvage(dominant, subordinate)
        case (_, nil, nil):
            return (dominant, .identical)
        }
    }

    /// Reports a whole-value conflict and applies the app's override, if any.
    private func reported(
        _ decision: MergeDecision, _ ancestor: Version, _ dominant: Version, _ subordinate: Version, chosen: Version
    ) throws -> Version {
        let result = try MergeContext.conflict(
            strategy: decision.rawValue, ancestor: ancestor.value, dominant: dominant.value,
            subordinate: subordinate.value, chosen: chosen.value)
        return try Version(result)
    }

    private func salvage(_ dominant: Version, _ subordinate: Version) throws -> (version: Version, decision: MergeDecision) {
        if dominant.json == subordinate.json { return (dominant, .identical) }
        guard let mine = dominant.value else { return (subordinate, .salvage) }
        guard let theirs = subordinate.value else { return (dominant, .salvage) }
        guard let salvaged = try MergeableDispatch.salvaged(mine, theirs) else { return (dominant, .lastWriterWins) }
        return (try Version(salvaged), .salvage)
    }
}
