import ForkStoreGit

/// The small API the exchange (`ForkStoreExchange`) syncs through. Network transfers run on a
/// second libgit2 handle so they never hold the store's lock; every reference the exchange
/// needs moved goes through the engine's write path.
extension StoreEngine {
    /// Where a fetch lands before its commits are checked.
    static var incomingReference: String { "refs/forkstore/incoming" }
    /// The exact commit being pushed (`main` may move on while the push runs).
    static var outgoingReference: String { "refs/forkstore/outgoing" }

    /// Fetches the remote's `main` into the incoming reference and returns its head; nil when
    /// the remote has no `main` yet (an empty remote). Throws `GitError` for transfer failures.
    package func fetchRemoteMain(from url: String, options remoteOptions: RemoteOptions) throws -> CommitID? {
        try setScratchReference(Self.incomingReference, to: nil)
        return try withTransferRepository { repository in
            try repository.fetch(
                from: url, refspecs: ["+\(Fork.main.referenceName):\(Self.incomingReference)"], options: remoteOptions)
            return try repository.resolveReference(Self.incomingReference).map(CommitID.init)
        }
    }

    /// Brings a fetched head in: checks every commit `main` lacks (halting on an unknown model
    /// version with `cloud` left at the last readable state), moves `cloud` to the head, then
    /// merges `cloud` into `main`. Returns how many commits were new to `main`, and the merge.
    package func integrate(
        _ incoming: CommitID, resolvingConflicts resolver: ConflictResolver?
    ) throws -> (newCommits: Int, merge: MergeOutcome) {
        let newCommits = try read { session in
            let arriving = try session.walk(from: incoming.objectID, hiding: session.headID(of: .main))
            for id in arriving { try session.checkStamps(of: session.commit(id)) }
            return arriving.count
        }
        try moveCloud(to: incoming)
        if let joined = try joinRemoteHistory(incoming) { return (newCommits, joined) }
        let merge = try merge(from: .cloud, into: .main, resolvingConflicts: resolver, alreadyChecked: incoming)
        return (newCommits, merge)
    }

    /// A store that holds nothing yet (`main` is still its own empty first commit) takes the
    /// remote's history as it is, rather than merging two unrelated histories: a new replica
    /// joining a remote starts where the others are. Nil when `main` holds anything.
    private func joinRemoteHistory(_ incoming: CommitID) throws -> MergeOutcome? {
        let (_, newHead) = try advance(.main, kind: .fastForwarded, mergedFrom: .cloud) { session, head in
            guard head.parents.isEmpty, head.id != incoming, head.tree == (try session.writeTree([])) else { return .nothing }
            return .move(to: incoming.objectID, as: .fastForwarded)
        }
        return newHead.map { .fastForwarded(to: $0.id) }
    }

    /// Commits on `main` that the remote (as last seen in `cloud`) lacks, newest first.
    package func outgoingCommits() throws -> [Commit] {
        try read { session in
            guard let main = try session.headID(of: .main) else { return [] }
            return try session.walk(from: main, hiding: session.headID(of: .cloud)).map { id in try session.commit(id) }
        }
    }

    /// Pushes `head` as the remote's `main`. Returns nil on success, or the server's reason
    /// when it refused the update (usually because another replica pushed first). Throws
    /// `GitError` for transfer failures.
    package func pushMain(_ head: CommitID, to url: String, options remoteOptions: RemoteOptions) throws -> String? {
        try setScratchReference(Self.outgoingReference, to: head)
        return try withTransferRepository { repository -> String? in
            do {
                let result = try repository.push(
                    to: url, refspecs: ["\(Self.outgoingReference):\(Fork.main.referenceName)"], options: remoteOptions)
                return result.rejected.values.first
            } catch let error as GitError where error.code == .nonFastForward {
                return error.message
            }
        }
    }

    /// Moves `cloud` to a commit the remote now holds (fetched and checked, or just pushed),
    /// creating it on the first sync.
    package func moveCloud(to commit: CommitID) throws {
        if try !hasFork(.cloud) {
            do {
                try createFork(.cloud, at: commit, byExchange: true)
                return
            } catch StoreError.forkAlreadyExists {
                // Another exchange created it a moment ago: move it as usual.
            }
        }
        try advance(.cloud, kind: .synced) { _, head in
            head.id == commit ? .nothing : .move(to: commit.objectID, as: .synced)
        }
    }

    /// Points one of the exchange's scratch references at `target`, or removes it, under the
    /// writer lock like every other reference update.
    private func setScratchReference(_ name: String, to target: CommitID?) throws {
        try write { session in
            try git("updating \(name)") { () throws(GitError) in
                try session.repository.removeReference(name)
                if let target {
                    try session.repository.updateReference(
                        name, to: target.objectID, expecting: nil, logMessage: "forkstore: exchange")
                }
            }
        }
    }

    /// Runs `body` with the transfer handle, opened on first use and kept for the engine's
    /// lifetime, one transfer at a time.
    private func withTransferRepository<Result: Sendable>(_ body: (Repository) throws -> Result) throws -> Result {
        try transfers.withLock { handle in
            if let repository = handle { return try body(repository) }
            let repository = try git("opening the store for sync") { () throws(GitError) in try Repository.openBare(at: path) }
            handle = repository
            return try body(repository)
        }
    }
}
