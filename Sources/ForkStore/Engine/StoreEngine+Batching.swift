import ForkStoreGit

/// Writes of many objects: every new object goes into one pack, written and made durable before
/// the fork moves (a crash never leaves a fork naming objects that are not on disk), instead of
/// one file per object.
extension StoreEngine {
    /// Like ``commit(on:message:_:)``, with the new objects written as one pack.
    func commitInOnePack(
        on fork: Fork, message: String, _ makeTree: (StoreSession, Commit) throws -> ObjectID
    ) throws -> Commit {
        try commits(on: fork, message: { _ in message }, count: 1) { session, _, head in try makeTree(session, head) }.head
    }

    /// Commits `count` trees in a row on a fork, each on top of the one before, in one pack and
    /// one move of the fork: an import's segment. `makeTree` gets the batch's index and the
    /// commit to build on; a tree equal to its parent's makes no commit. Returns the fork's head
    /// and how many commits were made.
    func commits(
        on fork: Fork, message: (Int) -> String, count: Int,
        _ makeTree: (StoreSession, Int, Commit) throws -> ObjectID
    ) throws -> (head: Commit, made: Int) {
        var made = 0
        try Self.refuseAppWrites(to: fork)
        let outcome = try advance(fork, kind: .committed, largeWrite: true) { session, head in
            try session.checkStamps(of: head)
            made = 0
            let last = try session.repository.withObjectsInOnePack { repository -> (Commit, commits: [ObjectID]) in
                let batch = StoreSession(repository: repository, model: model, signature: session.signature)
                var parent = head
                var written: [ObjectID] = []
                for index in 0..<count {
                    let tree = try makeTree(batch, index, parent)
                    guard tree != parent.tree else { continue }
                    let text = try stampedMessage(message(index), tree: tree, after: [parent], in: batch)
                    let id = try git("writing a commit on '\(fork)'") { () throws(GitError) in
                        try repository.createCommit(
                            tree: tree, parents: [parent.id.objectID], message: text, signature: session.signature,
                            sign: options.commitSigner)
                    }
                    parent = try batch.commit(id)
                    written.append(id)
                    made += 1
                }
                return (parent, written)
            }
            return last.id == head.id ? .nothing : .move(to: last.id.objectID, as: .committed)
        }
        return (outcome.newHead ?? outcome.oldHead, made)
    }
}
