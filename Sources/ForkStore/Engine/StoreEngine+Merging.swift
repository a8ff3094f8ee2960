import ForkStoreGit

extension StoreEngine {
    /// Merges `source` into `target`: up to date, a fast-forward, or a merge commit with
    /// parents `[target, source]` whose tree the layout merged.
    ///
    /// Every commit the merge brings in is checked for stamps this build can read, unless
    /// `source`'s head is `alreadyChecked` (the exchange checks what it fetched before it moves
    /// `cloud`, and `main` only grows in between).
    ///
    /// Merging two forks that share no history, where one of them is rooted in a checkpoint,
    /// adopts the winning lineage instead (FORMAT.md §16, ``adoption(of:by:resolver:in:)``):
    /// `cloud` into `main` after a peer compacted, or a fork left on the old history (it
    /// branched before the horizon) into a compacted `main`.
    @discardableResult
    func merge(
        from source: Fork, into target: Fork, resolvingConflicts resolver: ConflictResolver?,
        alreadyChecked: CommitID? = nil
    ) throws -> MergeOutcome {
        guard source != target else { return .upToDate }
        try Self.refuseAppWrites(to: target)
        var merged = false
        var conflicts: [MergeConflict] = []
        let (_, newHead) = try advance(target, kind: .merged, mergedFrom: source) { session, head in
            let theirs = try session.head(of: source)
            merged = false
            if theirs.id == head.id { return .nothing }
            let ours = head.id.objectID, other = theirs.id.objectID
            let (contained, behind) = try git("comparing '\(source)' with '\(target)'") { () throws(GitError) in
                (try session.repository.isDescendant(ours, of: other), try session.repository.isDescendant(other, of: ours))
            }
            if contained { return .nothing }
            if theirs.id != alreadyChecked { try session.checkStamps(ofCommitsIn: other, notIn: ours) }
            if behind { return .move(to: other, as: .fastForwarded) }
            let bases = try session.mergeBases(head, theirs)
            if bases.isEmpty, let adoption = try adoption(of: theirs, by: head, resolver: resolver, in: session) {
                merged = adoption.carried != nil
                conflicts = adoption.carried?.conflicts ?? []
                return adoption.advance
            }
            let oursIsLater = try session.latestWrite(from: head, since: bases)
                .outranks(session.latestWrite(from: theirs, since: bases))
            let result = try MergeContext.collecting(
                dominantIsOurs: oursIsLater, resolver: resolver ?? options.conflictResolver,
                removalPolicy: options.removalPolicy
            ) {
                try mergedTree(
                    dominant: oursIsLater ? head : theirs, subordinate: oursIsLater ? theirs : head, bases: bases,
                    parents: (head, theirs), in: session)
            }
            let trailers = Self.mergeTrailers(
                from: source, decision: result.result.decision, conflicts: result.conflicts, strategies: result.strategies)
            let message = try stampedMessage(
                "Merge fork '\(source)' into '\(target)'", tree: result.result.tree, after: [head, theirs], in: session,
                trailers)
            merged = true
            conflicts = result.conflicts
            return .commit(tree: result.result.tree, parents: [ours, other], message: message)
        }
        guard let newHead else { return .upToDate }
        return merged ? .merged(newHead, conflicts: conflicts) : .fastForwarded(to: newHead.id)
    }

    /// The merged tree of two heads, `dominant` being the side with the later write, so every
    /// replica that merges the same two commits decides the same way; built on the first of
    /// `parents` (the fork merged into), whose order the participants merge rule follows.
    private func mergedTree(
        dominant: Commit, subordinate: Commit, bases: [Commit], parents: (first: Commit, second: Commit), in session: StoreSession
    ) throws -> LayoutMerge {
        // A virtual base is an internal step: its conflicts are not the app's to see.
        let base = try MergeContext.$current.withValue(nil) { try virtualBase(of: bases, in: session) }
        let merged = try layout.merge(
            base: base, dominant: MergeInput(dominant), subordinate: MergeInput(subordinate), onto: parents.first.tree, in: session)
        let tree = try mergedParticipants(
            into: merged.tree, bases: bases, first: parents.first, second: parents.second, session: session)
        return LayoutMerge(tree: tree, decision: merged.decision, origin: merged.origin)
    }

    /// The common ancestor to merge against: none for unrelated histories, the merge base, or
    /// for several bases (a criss-cross) the bases merged pairwise into one virtual base, as
    /// git's recursive strategy does. Bases come highest rank first, so replicas fold alike.
    func virtualBase(of bases: [Commit], in session: StoreSession) throws -> MergeInput? {
        guard let first = bases.first else { return nil }
        var folded = MergeInput(first)
        for base in bases.dropFirst() {
            let inner = try virtualBase(of: session.mergeBases(first, base), in: session)
            let merged = try layout.merge(
                base: inner, dominant: folded, subordinate: MergeInput(base), onto: folded.tree, in: session)
            folded = MergeInput(tree: merged.tree, origin: merged.origin)
        }
        return folded
    }

    /// The trailers that let `git log` show what a merge decided: the fork merged, the
    /// whole-value decision, the strategies that ran, and ten conflicts (the first by the UTF-8
    /// bytes of their written form, so every replica writes the same ten).
    static func mergeTrailers(
        from source: Fork, decision: MergeDecision, conflicts: [MergeConflict], strategies: [String]
    ) -> [Trailer] {
        var trailers = [
            Trailer(key: TrailerKey.mergedFork, value: source.name),
            Trailer(key: TrailerKey.mergeStrategy, value: decision.rawValue),
        ]
        if !strategies.isEmpty {
            let names = strategies.map(TrailerText.escapingAllButUnreserved).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            trailers.append(Trailer(key: TrailerKey.mergeStrategies, value: names.joined(separator: ", ")))
        }
        trailers.append(Trailer(key: TrailerKey.mergeConflicts, value: String(conflicts.count)))
        let written = conflicts.map(\.description).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for value in written.prefix(10) {
            trailers.append(Trailer(key: TrailerKey.mergeConflict, value: value))
        }
        return trailers
    }

    /// Merges every fork but `cloud` into `main`, then `main` back into each of them.
    func syncAllForks() throws {
        let others = try forks().filter { $0 != .main && $0 != .cloud }
        for fork in others { try merge(from: fork, into: .main, resolvingConflicts: nil) }
        for fork in others { try merge(from: .main, into: fork, resolvingConflicts: nil) }
    }
}
