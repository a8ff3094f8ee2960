import ForkStoreGit

extension Store {
    /// Every fork of the store, sorted by name.
    public func forks() throws -> [Fork] {
        try repository.withRepository { repository in
            try git("listing forks") { () throws(GitError) in
                try repository.references(withPrefix: "refs/heads/").map {
                    Fork(unchecked: String($0.name.dropFirst("refs/heads/".count)))
                }
            }
        }
    }

    /// Whether a fork exists.
    public func hasFork(_ fork: Fork) throws -> Bool {
        try repository.withRepository { repository in
            try git("reading fork '\(fork)'") { () throws(GitError) in
                try repository.resolveReference(fork.referenceName) != nil
            }
        }
    }

    /// Creates a fork at a commit, by default at `main`'s head.
    @discardableResult
    public func createFork(_ fork: Fork, at commit: CommitID? = nil) throws -> Commit {
        let head = try repository.withRepository { repository -> Commit in try writerLock.withLock {
            let start = try commit.map { id in try Self.existingCommit(id, in: repository) }
                ?? Self.head(of: .main, in: repository)
            do {
                try repository.updateReference(
                    fork.referenceName, to: start.id.objectID, expecting: nil, logMessage: "forkstore: create fork")
            } catch let error as GitError where error.code == .exists {
                throw StoreError.forkAlreadyExists(fork.name)
            } catch let error as GitError where error.code == .invalidSpec {
                throw StoreError.invalidForkName(fork.name, reason: error.message)
            } catch let error as GitError {
                throw StoreError(error, during: "creating fork '\(fork)'")
            }
            return start
        } }
        changeHub.publish(StoreChange(fork: fork, commit: head.id, kind: .forkCreated))
        return head
    }

    /// Creates a fork at another fork's head.
    @discardableResult
    public func createFork(_ fork: Fork, from source: Fork) throws -> Commit {
        try createFork(fork, at: head(of: source).id)
    }

    /// Deletes a fork. Its commits stay reachable from any fork that merged them.
    /// `main` cannot be deleted.
    public func deleteFork(_ fork: Fork) throws {
        guard fork != .main else { throw StoreError.protectedFork(fork.name) }
        let head = try repository.withRepository { repository -> Commit in try writerLock.withLock {
            let head = try Self.head(of: fork, in: repository)
            try git("deleting fork '\(fork)'") { () throws(GitError) in
                try repository.deleteReference(fork.referenceName, expecting: head.id.objectID)
            }
            return head
        } }
        changeHub.publish(StoreChange(fork: fork, commit: head.id, kind: .forkDeleted))
    }
}

extension Store {
    /// How many commits `fork` has that `other` lacks (`ahead`), and the reverse (`behind`).
    public func divergence(of fork: Fork, from other: Fork) throws -> (ahead: Int, behind: Int) {
        try repository.withRepository { repository in
            let mine = try Self.head(of: fork, in: repository), theirs = try Self.head(of: other, in: repository)
            return try git("comparing '\(fork)' with '\(other)'") { () throws(GitError) in
                try repository.aheadBehind(mine.id.objectID, theirs.id.objectID)
            }
        }
    }
}
