import ForkStoreGit

/// Carry-over (FORMAT.md §16): the changes of a head on a losing lineage (the old history, or a
/// checkpoint that lost the adoption rule) moved onto the winning lineage's head by their tree
/// differences, as one commit with a single parent, so nothing is lost and the old history is
/// never merged back in.
extension StoreEngine {
    /// What carrying one head onto another comes to.
    struct CarryOver {
        /// The tree and message of the carried commit, whose one parent is the winning head;
        /// nil when the losing head's changes are in the winning head already.
        let commit: (tree: ObjectID, message: String)?
        let conflicts: [MergeConflict]
    }

    /// Carries `losing` onto `winning`: a three-way merge of their trees (the winning head as
    /// ours) against their base in the old history (``carryBase(losing:winning:in:)``), with the
    /// store's ordinary merge rules, conflict reports and participants rule; with no base, the
    /// two-way salvage. Needs only commit ids and trees.
    ///
    /// Where the winning head is shared, every commit carried must have been signed by a
    /// participant who may write there: a participant the winning lineage removed does not get
    /// their commits back through another replica's carry-over.
    func carryOver(
        _ losing: Commit, onto winning: Commit, resolver: ConflictResolver?, in session: StoreSession
    ) throws -> CarryOver {
        let bases: [Commit]
        switch try carryBase(losing: losing, winning: winning, in: session) {
        case .alreadyCarried: return CarryOver(commit: nil, conflicts: [])
        case .bases(let found): bases = found
        }
        try checkCarriedSigners(from: losing, since: bases, onto: winning, in: session)
        let oursIsLater = try session.latestWrite(from: winning, since: bases)
            .outranks(session.latestWrite(from: losing, since: bases))
        let result = try MergeContext.collecting(
            dominantIsOurs: oursIsLater, resolver: resolver ?? options.conflictResolver, removalPolicy: options.removalPolicy
        ) { () throws -> LayoutMerge in
            let base = try MergeContext.$current.withValue(nil) { try virtualBase(of: bases, in: session) }
            let merged = try layout.merge(
                base: base, dominant: MergeInput(oursIsLater ? winning : losing),
                subordinate: MergeInput(oursIsLater ? losing : winning), onto: winning.tree, in: session)
            let tree = try mergedParticipants(into: merged.tree, bases: bases, first: winning, second: losing, session: session)
            return LayoutMerge(tree: tree, decision: merged.decision, origin: merged.origin)
        }
        guard result.result.tree != winning.tree else { return CarryOver(commit: nil, conflicts: result.conflicts) }
        let root = try session.lineageRoot(of: winning.id.objectID)
        var trailers = Self.mergeTrailers(
            from: .main, decision: result.result.decision, conflicts: result.conflicts, strategies: result.strategies
        ).filter { $0.key != TrailerKey.mergedFork }
        trailers.append(Trailer(key: TrailerKey.carriedFrom, value: losing.id.hex))
        let message = try stampedMessage(
            "Carry over onto checkpoint \(root.id.short)", tree: result.result.tree, after: [winning, losing], in: session, trailers)
        return CarryOver(commit: (result.result.tree, message), conflicts: result.conflicts)
    }

    /// The base of a carry-over.
    enum CarryBase {
        /// The losing head's changes are in the winning lineage already (an earlier
        /// carry-over of it, or of a commit that contains it).
        case alreadyCarried
        /// The common ancestors in the old history (empty: none known, the two-way salvage).
        case bases([Commit])
    }

    /// Where to carry `losing` from: the newest commit of its history that the winning
    /// lineage already carried (its `Carried-From`), so nothing is carried twice; else the
    /// merge bases of the nearest old heads that share history (``oldHeads(from:in:)``); else
    /// the losing lineage's checkpoint when the winning lineage was cut from it; none when
    /// this store holds no history the two share.
    func carryBase(losing: Commit, winning: Commit, in session: StoreSession) throws -> CarryBase {
        let losingID = losing.id.objectID
        var current: Commit? = winning
        while let commit = current {
            if let carried = commit.carriedFrom, let earlier = try? session.commit(carried.objectID) {
                if carried == losing.id { return .alreadyCarried }
                let (contains, contained) = try git("comparing carried history") { () throws(GitError) in
                    (try session.repository.isDescendant(losingID, of: carried.objectID),
                     try session.repository.isDescendant(carried.objectID, of: losingID))
                }
                if contained { return .alreadyCarried }
                if contains { return .bases([earlier]) }
            }
            current = try commit.parents.first.map { (id) throws(StoreError) in try session.commit(id.objectID) }
        }
        // The old heads of each side, nearest first; the first pair that shares history gives
        // the base.
        let losingOld = try oldHeads(from: losing, in: session)
        for winningOld in try oldHeads(from: winning, in: session) {
            for old in losingOld {
                let bases = try session.mergeBases(old, winningOld)
                if !bases.isEmpty { return .bases(bases) }
            }
        }
        // No history in common here, but the winning lineage was cut from the losing one's
        // checkpoint (a remote put back to an older lineage): that checkpoint's data is
        // history both share.
        let losingRoot = try session.lineageRoot(of: losingID)
        if losingRoot.isCheckpoint, try isCut(winning, after: losingRoot.id, in: session) { return .bases([losingRoot]) }
        return .bases([])
    }

    /// Whether `head`'s lineage was cut from `checkpoint`'s: its root names it in
    /// `Checkpoint-After`, or names a checkpoint this store holds that does, and so on.
    private func isCut(_ head: Commit, after checkpoint: CommitID, in session: StoreSession) throws -> Bool {
        var root = try session.lineageRoot(of: head.id.objectID)
        for _ in 0..<16 {
            guard let after = root.checkpointAfter else { return false }
            if after == checkpoint { return true }
            guard let earlier = try? session.commit(after.objectID), earlier.isCheckpoint else { return false }
            root = earlier
        }
        return false
    }

    /// `head`, then, for the checkpoint its lineage is rooted in, the commit that checkpoint
    /// stands in for and the archive it replaced (each when this store holds it), then the
    /// same for the lineage of that archive (a history compacted again). A checkpoint's own
    /// commit counts even without its archive: a replica still on the old history holds it,
    /// and its tree is the checkpoint's.
    private func oldHeads(from head: Commit, in session: StoreSession) throws -> [Commit] {
        var heads = [head]
        var seen: Set<CommitID> = [head.id]
        var next: Commit? = head
        while let last = next, heads.count < 32 {
            next = nil
            let root = try session.lineageRoot(of: last.id.objectID)
            guard root.isCheckpoint else { break }
            if let horizon = root.checkpointOf.flatMap({ try? session.commit($0.objectID) }), seen.insert(horizon.id).inserted {
                heads.append(horizon)
                next = horizon
            }
            if let archive = try session.archiveHead(of: root.id), seen.insert(archive.id).inserted {
                heads.append(archive)
                next = archive
            }
        }
        return heads
    }

    /// Refuses a carry-over onto a shared head of a commit whose signer may not write there.
    private func checkCarriedSigners(from losing: Commit, since bases: [Commit], onto winning: Commit, in session: StoreSession) throws {
        guard let list = try participants(inTree: winning.tree, of: winning, session: session)?.inForce else { return }
        let carried = try git("listing the commits to carry") { () throws(GitError) in
            try session.repository.walk(from: losing.id.objectID, hiding: bases.map(\.id.objectID))
        }
        for id in carried {
            let commit = try session.commit(id)
            // A checkpoint or the store's first commit is history both lineages share.
            if commit.parents.isEmpty { continue }
            guard let refusal = try carryRefusal(of: commit, under: list, in: session) else { continue }
            throw StoreError.rejectedCommit(
                commit: commit.id, path: "",
                rule: "\(refusal) in the participants of checkpoint lineage \(winning.id.short), so it is not carried onto it")
        }
    }

    /// Why `list` does not let `commit`'s signer write; nil when it does.
    private func carryRefusal(of commit: Commit, under list: ParticipantsFile, in session: StoreSession) throws(StoreError) -> String? {
        let key: ParticipantKey
        do {
            key = try signer(of: commit, in: session)
        } catch {
            guard error.code == .rejectedCommit else { throw error }
            return error.reason ?? "it is not signed"
        }
        return list.refusal(of: key, changingParticipants: false)
    }
}
