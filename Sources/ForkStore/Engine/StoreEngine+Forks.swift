import ForkStoreGit

extension StoreEngine {
    /// Every fork, sorted by name.
    func forks() throws -> [Fork] {
        try read { session in
            try git("listing forks") { () throws(GitError) in
                try session.repository.references(withPrefix: Fork.referencePrefix).map {
                    Fork(unchecked: String($0.name.dropFirst(Fork.referencePrefix.count)))
                }
            }
        }
    }

    func hasFork(_ fork: Fork) throws -> Bool {
        try read { session in try session.headID(of: fork) != nil }
    }

    /// Creates a fork at a commit, by default at `main`'s head. `cloud` is created only by the
    /// exchange (`byExchange`).
    @discardableResult
    func createFork(_ fork: Fork, at commit: CommitID?, byExchange: Bool = false) throws -> Commit {
        if !byExchange { try Self.refuseAppWrites(to: fork) }
        let start = try write { session in
            let start = try commit.map { id in try session.existingCommit(id) } ?? session.head(of: .main)
            guard try moveReference(of: fork, to: start.id.objectID, expecting: nil, in: session) else {
                throw StoreError.forkAlreadyExists(fork.name)
            }
            return start
        }
        publish(StoreChange(fork: fork, commit: start.id, kind: .forkCreated))
        return start
    }

    /// Deletes a fork; `main` and `cloud` are protected.
    func deleteFork(_ fork: Fork) throws {
        guard fork != .main else { throw StoreError.protectedFork(fork.name) }
        try Self.refuseAppWrites(to: fork)
        let head = try write { session in
            let head = try session.head(of: fork)
            do {
                try changeReference(of: fork, to: nil, in: session) { () throws(GitError) in
                    try session.repository.deleteReference(fork.referenceName, expecting: head.id.objectID)
                }
            } catch let error as GitError {
                throw StoreError(error, during: "deleting fork '\(fork)'")
            }
            return head
        }
        publish(StoreChange(fork: fork, commit: head.id, kind: .forkDeleted))
    }

    /// How many commits `fork` has that `other` lacks, and the reverse.
    func divergence(of fork: Fork, from other: Fork) throws -> (ahead: Int, behind: Int) {
        try read { session in
            let mine = try session.head(of: fork), theirs = try session.head(of: other)
            return try git("comparing '\(fork)' with '\(other)'") { () throws(GitError) in
                try session.repository.aheadBehind(mine.id.objectID, theirs.id.objectID)
            }
        }
    }
}
