import ForkStoreGit

extension Store {
    /// Merges `source` into `target`.
    ///
    /// - If `target` already contains `source`'s head: ``MergeOutcome/upToDate``.
    /// - If `target` has nothing of its own: it fast-forwards to `source`'s head.
    /// - Otherwise a merge commit with parents `[target, source]` holds the merged value
    ///   (see ``Mergeable`` and ``MergeDecision``). Its trailers name the fork merged from and
    ///   the decision taken.
    ///
    /// The merged value depends only on the two commits, never on which fork or replica runs
    /// the merge, so replicas that merge each other's work converge.
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
        guard source != target else { return .upToDate }
        var merged = false
        var conflicts: [MergeConflict] = []
        let (_, newHead) = try advance(target, kind: .merged, mergedFrom: source) { repository, head in
            let theirs = try Self.head(of: source, in: repository)
            merged = false
            if theirs.id == head.id { return .nothing }
            let ours = head.id.objectID, other = theirs.id.objectID
            let (contained, behind) = try git("comparing '\(source)' with '\(target)'") { () throws(GitError) in
                (try repository.isDescendant(ours, of: other), try repository.isDescendant(other, of: ours))
            }
            if contained { return .nothing }
            try Self.checkStamps(ofCommitsIn: other, notIn: ours, repository: repository)
            if behind { return .fastForward(to: other) }
            let result = try mergedTree(ours: head, theirs: theirs, resolver: resolver ?? options.conflictResolver, in: repository)
            let message = CommitMessage.compose(
                "Merge fork '\(source)' into '\(target)'",
                trailers: Self.stamp(
                    lamport: (head.lamport >= theirs.lamport ? head : theirs).nextLamport,
                    Self.mergeTrailers(
                        from: source, decision: result.decision, conflicts: result.conflicts,
                        strategies: result.strategies)))
            merged = true
            conflicts = result.conflicts
            return .commit(tree: result.tree, parents: [ours, other], message: message)
        }
        guard let newHead else { return .upToDate }
        return merged ? .merged(newHead, conflicts: conflicts) : .fastForwarded(to: newHead.id)
    }

    /// The trailers that let `git log` show what a merge decided: the fork merged, the
    /// whole-value decision, the strategies that ran, and the conflicts (the first ten by path).
    static func mergeTrailers(
        from source: Fork, decision: MergeDecision, conflicts: [MergeConflict], strategies: [String]
    ) -> [Trailer] {
        var trailers = [
            Trailer(key: TrailerKey.mergedFork, value: source.name),
            Trailer(key: TrailerKey.mergeStrategy, value: decision.rawValue),
        ]
        if !strategies.isEmpty {
            trailers.append(Trailer(key: TrailerKey.mergeStrategies, value: strategies.joined(separator: ", ")))
        }
        trailers.append(Trailer(key: TrailerKey.mergeConflicts, value: String(conflicts.count)))
        for conflict in conflicts.prefix(10) {
            trailers.append(Trailer(key: TrailerKey.mergeConflict, value: conflict.description))
        }
        return trailers
    }

    /// The merged tree of two heads: the value merged whole, or a record collection merged
    /// record by record.
    private func mergedTree(
        ours: Commit, theirs: Commit, resolver: ConflictResolver?, in repository: Repository
    ) throws -> (tree: ObjectID, decision: MergeDecision, conflicts: [MergeConflict], strategies: [String]) {
        switch kind {
        case .value:
            let result = try MergeEngine<Value>(repository: repository).merge(ours: ours, theirs: theirs, resolver: resolver)
            return (try Self.tree(for: result.version.value, in: repository), result.decision, result.conflicts, result.strategies)
        case .records:
            let result = try MergeContext.collecting(dominantIsOurs: ours.outranks(theirs), resolver: resolver) {
                try RecordMerger<Value>(repository: repository).mergedTree(ours: ours, theirs: theirs)
            }
            return (result.result, .mergeable, result.conflicts, result.strategies)
        }
    }

    /// Refuses a merge that would bring in a commit this build cannot read, even one it
    /// would only fast-forward over: the fork would otherwise hold data the app cannot open.
    static func checkStamps(ofCommitsIn head: ObjectID, notIn base: ObjectID?, repository: Repository) throws {
        let incoming = try git("listing the commits to merge") { () throws(GitError) in
            try repository.walk(from: head, hiding: base)
        }
        for id in incoming {
            try checkStamps(of: Self.commit(id, in: repository))
        }
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

    /// Merges every fork into `main`, then `main` back into every fork, so all forks end
    /// with the same value. `cloud` is left alone: only the exchange writes it.
    public func syncAllForks() throws {
        let others = try forks().filter { $0 != .main && $0 != .cloud }
        for fork in others { try mergeIntoMain(from: fork) }
        for fork in others { try mergeFromMain(into: fork) }
    }
}
