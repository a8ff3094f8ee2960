import ForkStoreGit

/// What an incoming checkpoint must be before a replica adopts its lineage (FORMAT.md §16):
/// a remote that hands out a fake one (another tree, a malformed trailer, a stranger's
/// signature in a shared store) could otherwise replace a store's history.
extension StoreEngine {
    /// Checks an incoming checkpoint (its `Checkpoint-Of` was read with its stamps): where this
    /// store holds the commit it names,
    /// the same tree and the same stamps (`Clock`, `Lamport`: the adoption rule orders
    /// checkpoints by them), and `Checkpoint-After` naming the root of its history; where `main` or the checkpoint is shared, signed by an owner of
    /// each. A checkpoint that passes may start its lineage (``ParticipantsInForce``).
    func checkCheckpoint(_ commit: Commit, inForce: inout ParticipantsInForce, in session: StoreSession) throws(StoreError) {
        func refuse(_ rule: String, _ path: String = "") -> StoreError { .rejectedCommit(commit: commit.id, path: path, rule: rule) }
        // A malformed `Checkpoint-Of` (twice, not a full id, on a commit with parents) is a
        // malformed commit, refused with the stamps.
        guard commit.isCheckpoint, let of = commit.checkpointOf else { return }
        if let original = try? session.commit(of.objectID) {
            if let problem = Checkpoint.problem(of: commit, horizonTree: original.tree) { throw refuse(problem) }
            guard original.clock == commit.clock, original.lamport == commit.lamport else {
                throw refuse("it is a checkpoint of \(of.short) whose Clock or Lamport is not that commit's")
            }
            // A carry-over takes the checkpoint it names as history both sides share.
            let root = try session.lineageRoot(of: original.id.objectID)
            guard commit.checkpointAfter == (root.isCheckpoint ? root.id : nil) else {
                throw refuse("it is a checkpoint of \(of.short) whose Checkpoint-After does not name the checkpoint that commit's history is rooted in")
            }
        }
        let lists = [inForce.mainParticipants, try inForce.participants(of: commit)].compactMap { $0 }
        if !lists.isEmpty {
            let key: ParticipantKey
            do {
                key = try signer(of: commit, in: session)
            } catch {
                throw refuse("it is a checkpoint of a shared store, and only a checkpoint an owner signed is adopted there")
            }
            for list in lists where list.participant(with: key)?.access != .owner {
                throw refuse(
                    "it is a checkpoint signed by \(key), who is not an owner, and only a checkpoint an owner signed is adopted in a shared store",
                    ParticipantsFile.path)
            }
        }
        inForce.accept(checkpoint: commit)
    }
}
