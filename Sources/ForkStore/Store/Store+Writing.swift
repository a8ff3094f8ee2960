import Foundation
import ForkStoreGit

extension Store {
    /// Saves `value` as the fork's new value in one commit.
    ///
    /// When the value is unchanged no commit is made and the current head is returned.
    @discardableResult
    public func save(_ value: Value, to fork: Fork = .main, message: String? = nil) throws -> Commit {
        try write(fork, message: message ?? "Update value") { _ in value }
    }

    /// Changes the fork's value in place and commits the result.
    ///
    /// `change` runs while the store is locked, so the value it sees is the newest and no
    /// other write can slip in between. Keep it short and do not call the store from inside it.
    /// Setting the value to nil removes it. When nothing changed no commit is made and the
    /// current head is returned.
    @discardableResult
    public func update(
        _ fork: Fork = .main, message: String? = nil, _ change: (inout Value?) throws -> Void
    ) throws -> Commit {
        try write(fork, message: message ?? "Update value") { current in
            var value = current
            try change(&value)
            return value
        }
    }

    /// Removes the fork's value with a tombstone commit: a commit whose tree holds no value.
    /// The history keeps every earlier value.
    @discardableResult
    public func remove(from fork: Fork = .main, message: String? = nil) throws -> Commit {
        try write(fork, message: message ?? "Remove value") { _ in nil }
    }

    /// Commits whatever `newValue` returns for the current value, unless it is unchanged.
    func write(
        _ fork: Fork, message: String, kind: StoreChange.Kind = .committed,
        _ newValue: (Value?) throws -> Value?
    ) throws -> Commit {
        let outcome = try advance(fork, kind: kind) { repository, head in
            let current = try Self.snapshot(of: head, in: repository).value
            let tree = try Self.tree(for: try newValue(current), in: repository)
            guard tree != head.tree else { return .nothing }
            let text = CommitMessage.compose(message, trailers: Self.stamp(lamport: head.nextLamport))
            return .commit(tree: tree, parents: [head.id.objectID], message: text)
        }
        return outcome.newHead ?? outcome.oldHead
    }

    /// What a write decided to do to a fork's head.
    enum Advance {
        case nothing
        case commit(tree: ObjectID, parents: [ObjectID], message: String)
        case fastForward(to: ObjectID)
    }

    /// Moves a fork under the store's lock and the cross-process writer lock, with a
    /// compare-and-swap on its reference. When another writer moved the fork in between,
    /// `decide` runs again on top of the winner's commit.
    func advance(
        _ fork: Fork, kind: StoreChange.Kind, mergedFrom: Fork? = nil,
        _ decide: (Repository, Commit) throws -> Advance
    ) throws -> (oldHead: Commit, newHead: Commit?) {
        var publishedKind = kind
        let result = try repository.withRepository { repository in
            try writerLock.withLock { () throws -> (oldHead: Commit, newHead: Commit?) in
                var attempt = 0
                let lockDeadline = Date().addingTimeInterval(Self.lockWaitLimit)
                while attempt < options.maximumWriteAttempts {
                    attempt += 1
                    let head = try Self.head(of: fork, in: repository)
                    let target: ObjectID
                    switch try decide(repository, head) {
                    case .nothing:
                        return (head, nil)
                    case .fastForward(let id):
                        target = id
                        publishedKind = .fastForwarded
                    case .commit(let tree, let parents, let message):
                        publishedKind = kind
                        target = try git("writing a commit on '\(fork)'") { () throws(GitError) in
                            try repository.createCommit(tree: tree, parents: parents, message: message, signature: signature)
                        }
                    }
                    do {
                        try repository.updateReference(
                            fork.referenceName, to: target, expecting: head.id.objectID,
                            logMessage: "forkstore: \(kind)")
                    } catch let error as GitError where error.code == .modified || error.code == .exists {
                        options.logger.debug("fork '\(fork)' moved during a write; retrying (attempt \(attempt))")
                        continue
                    } catch let error as GitError where error.code == .locked {
                        guard Date() < lockDeadline else {
                            throw StoreError(error, during: "moving fork '\(fork)'")
                        }
                        attempt -= 1  // waiting for a lock is not a lost race
                        clearOrWaitForLockFiles(of: fork, in: repository)
                        continue
                    } catch let error as GitError {
                        throw StoreError(error, during: "moving fork '\(fork)'")
                    }
                    packIfDue(repository)
                    return (head, try Self.commit(target, in: repository))
                }
                throw StoreError.concurrentUpdate(fork: fork.name, attempts: options.maximumWriteAttempts)
            }
        }
        if let newHead = result.newHead {
            changeHub.publish(StoreChange(fork: fork, commit: newHead.id, mergedFrom: mergedFrom, kind: publishedKind))
        }
        return result
    }

    /// The packing policy: every 64 writes, estimate the loose objects and pack them all when
    /// there are more than ``StoreOptions/packThreshold``. Runs under the writer lock; a
    /// failure is logged, never thrown, because the write itself has landed.
    private func packIfDue(_ repository: Repository) {
        let due = writesSincePackCheck.withLock { count -> Bool in
            count += 1
            guard count >= 64 else { return false }
            count = 0
            return true
        }
        guard due, repository.estimatedLooseObjectCount() > options.packThreshold else { return }
        do {
            let packed = try repository.packLooseObjects()
            options.logger.debug("packed \(packed) loose objects")
        } catch {
            options.logger.notice("packing loose objects failed: \(error.message)")
        }
    }

    /// Packs every loose object into one pack file now. Returns how many were packed.
    @discardableResult
    public func pack() throws -> Int {
        try repository.withRepository { repository in
            try writerLock.withLock {
                try git("packing loose objects") { () throws(GitError) in try repository.packLooseObjects() }
            }
        }
    }

    /// How long a write waits for a git lock file held by someone else before failing.
    static var lockWaitLimit: TimeInterval { 5 }
    /// A git lock file this old was left by a killed process: live writers hold one for
    /// milliseconds.
    static var staleLockAge: TimeInterval { 2 }

    /// Handles a ref update that found git's lock file: removes it when it is stale (left by
    /// a killed writer), otherwise waits a moment for its owner (a live `git` process, say).
    private func clearOrWaitForLockFiles(of fork: Fork, in repository: Repository) {
        let gitDirectory = repository.gitDirectory
        for file in [fork.referenceName + ".lock", "packed-refs.lock"] {
            let path = gitDirectory + file
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let modified = attributes[.modificationDate] as? Date
            else { continue }
            if Date().timeIntervalSince(modified) >= Self.staleLockAge {
                options.logger.notice("removing stale lock file \(path) left by a killed writer")
                try? FileManager.default.removeItem(atPath: path)
                return
            }
        }
        Thread.sleep(forTimeInterval: 0.05)
    }
}
