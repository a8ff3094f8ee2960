import Foundation
import ForkStoreGit

extension StoreEngine {
    /// What a write decided to do to a fork's head.
    enum Advance {
        case nothing
        case commit(tree: ObjectID, parents: [ObjectID], message: String)
        /// Point the fork at an existing commit (a fast-forward, or `cloud` adopting the
        /// remote's head), published as `kind`.
        case move(to: ObjectID, as: StoreChange.Kind)
    }

    /// Commits the tree `makeTree` returns on top of the fork's head, stamped and with
    /// `message`, unless the tree is unchanged. The head's stamps are checked first: this build
    /// never writes on top of data it cannot read. Returns the fork's head afterwards.
    func commit(
        on fork: Fork, message: String, _ makeTree: (StoreSession, Commit) throws -> ObjectID
    ) throws -> Commit {
        try Self.refuseAppWrites(to: fork)
        let outcome = try advance(fork, kind: .committed) { session, head in
            try session.checkStamps(of: head)
            let tree = try makeTree(session, head)
            guard tree != head.tree else { return .nothing }
            let text = try stampedMessage(message, tree: tree, after: [head], in: session)
            return .commit(tree: tree, parents: [head.id.objectID], message: text)
        }
        return outcome.newHead ?? outcome.oldHead
    }

    /// Refuses a write by the app to `cloud`: it names what the remote holds, so only the
    /// exchange moves it; a commit there would be lost at the next sync.
    static func refuseAppWrites(to fork: Fork) throws(StoreError) {
        if fork == .cloud { throw StoreError.protectedFork(fork.name) }
    }

    /// Moves a fork under the store's lock and the cross-process writer lock, with a
    /// compare-and-swap on its reference. When another writer moved the fork in between,
    /// `decide` runs again on top of the winner's commit.
    @discardableResult
    func advance(
        _ fork: Fork, kind: StoreChange.Kind, mergedFrom: Fork? = nil, largeWrite: Bool = false,
        _ decide: (StoreSession, Commit) throws -> Advance
    ) throws -> (oldHead: Commit, newHead: Commit?) {
        let (result, publishedKind) = try write { session throws -> ((oldHead: Commit, newHead: Commit?), StoreChange.Kind) in
            for attempt in 1...options.maximumWriteAttempts {
                let head = try session.head(of: fork)
                let target: ObjectID, publishedKind: StoreChange.Kind
                switch try decide(session, head) {
                case .nothing:
                    return ((head, nil), kind)
                case .move(let id, let movedKind):
                    (target, publishedKind) = (id, movedKind)
                case .commit(let tree, let parents, let message):
                    publishedKind = kind
                    target = try git("writing a commit on '\(fork)'") { () throws(GitError) in
                        try session.repository.createCommit(
                            tree: tree, parents: parents, message: message, signature: session.signature, sign: options.commitSigner)
                    }
                }
                guard try moveReference(of: fork, to: target, expecting: head.id.objectID, in: session) else {
                    options.logger.debug("fork '\(fork)' moved during a write; retrying (attempt \(attempt))")
                    continue
                }
                maintainObjects(session.repository, afterLargeWrite: largeWrite)
                return ((head, try session.commit(target)), publishedKind)
            }
            throw StoreError.concurrentUpdate(fork: fork.name, attempts: options.maximumWriteAttempts)
        }
        if let newHead = result.newHead {
            publish(StoreChange(fork: fork, commit: newHead.id, mergedFrom: mergedFrom, kind: publishedKind))
        }
        return result
    }

    /// Points a fork at `target` if it still points at `expected` (nil: only if the fork does
    /// not exist yet). Returns false when another writer got there first.
    func moveReference(of fork: Fork, to target: ObjectID, expecting expected: ObjectID?, in session: StoreSession) throws -> Bool {
        do {
            try changeReference(of: fork, to: target, in: session) { () throws(GitError) in
                try session.repository.updateReference(
                    fork.referenceName, to: target, expecting: expected, logMessage: "forkstore: move \(fork)")
            }
            return true
        } catch let error as GitError where error.code == .modified || error.code == .exists {
            return false
        } catch let error as GitError where error.code == .invalidSpec {
            throw StoreError.invalidForkName(fork.name, reason: error.message)
        } catch let error as GitError {
            throw StoreError(error, during: "moving fork '\(fork)'")
        }
    }

    /// Run on taking the writer lock: a note in its file was left by a writer killed while it
    /// moved a ref. Removes the lock file that writer left, if it is there (see
    /// ``GitLockFiles``), and clears the note.
    func removeLockFileOfAKilledWriter(gitDirectory: String) {
        let note = writerLock.note
        guard !note.isEmpty else { return }
        if let path = GitLockFiles.removeLeftover(noted: note, gitDirectory: gitDirectory) {
            options.logger.notice("removed the lock file \(path) a killed writer left")
        }
        try? writerLock.setNote("")
    }

    /// Runs `change`, which moves (to `target`) or deletes (nil) a fork's reference, under the
    /// writer lock, noting the move in the lock's file until it is done (see ``GitLockFiles``).
    /// A git lock file in the way is waited for, unless stale, for ``lockWaitLimit``; then the
    /// write fails as ``StoreError/locked(path:)``. Other failures of `change` are thrown as
    /// they are (``GitError``).
    func changeReference(of fork: Fork, to target: ObjectID?, in session: StoreSession, _ change: () throws(GitError) -> Void) throws {
        let deadline = Date().addingTimeInterval(Self.lockWaitLimit)
        let gitDirectory = session.repository.gitDirectory
        try? writerLock.setNote(GitLockFiles.note(moving: fork.referenceName, to: target))
        defer { try? writerLock.setNote("") }
        let locks = [fork.referenceName + ".lock", "packed-refs.lock"].map { gitDirectory + $0 }
        while true {
            do throws(GitError) {
                try change()
                return
            } catch {
                guard error.code == .locked else { throw error }
            }
            if let stale = locks.first(where: { GitLockFiles.isStale($0) }) {
                options.logger.notice("removing the lock file \(stale): no process has it open, and nobody touched it for \(Int(GitLockFiles.staleAge)) s")
                try? FileManager.default.removeItem(atPath: stale)
            } else if Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            } else {
                throw StoreError.locked(path: locks.first { FileManager.default.fileExists(atPath: $0) } ?? locks[0])
            }
        }
    }

    /// The packing policy, decided from the object database itself so that stores written by
    /// short processes (a CLI command each) stay packed too: on a process's first write and
    /// every 32nd write after it, pack the loose objects once there are
    /// ``StoreOptions/packThreshold`` of them; after those and after any write of many objects
    /// (which writes a pack of its own, no loose objects), once there are more than sixteen
    /// packs, have the write roll small ones into one when it is done (``rollUpPacks()``).
    /// The first check also removes temporary files a killed writer or packer left. Runs under
    /// the writer lock; a failure is logged, never thrown, because the write itself has landed.
    func maintainObjects(_ repository: Repository, afterLargeWrite: Bool = false) {
        let writes = writesSincePackCheck.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        let checksLooseObjects = writes % 32 == 0
        guard checksLooseObjects || afterLargeWrite else { return }
        // A roll-up in progress (it holds the packing lock) owns temporary files: leave them.
        if writes == 0 { _ = packingLock.ifFree { repository.removeLeftoverTemporaryFiles() } }
        if checksLooseObjects {
            do throws(GitError) {
                let loose = repository.looseObjects()
                if loose.count >= options.packThreshold {
                    let packed = try repository.packLooseObjects(loose)
                    options.logger.debug("packed \(packed) loose objects")
                }
            } catch {
                options.logger.notice("packing failed: \(error.message)")
            }
        }
        if repository.packs().filter({ RollUp.rollsUp($0) }).count > RollUp.packsBefore { rollUpDue.withLock { $0 = true } }
    }

    /// Rolls small packs into one (geometrically, like `git repack --geometric=2`) through a
    /// repository handle of its own, outside the store's locks: writers and readers go on
    /// meanwhile, since every object is in the new pack before an old pack goes. The packing
    /// lock keeps two processes from doing the same work: a roll-up another process has started
    /// is left to it. A failure is logged, never thrown: the write that found it due has landed.
    func rollUpPacks() {
        _ = packingLock.ifFree {
            do throws(GitError) {
                let repository = try Repository.openBare(at: path)
                let rolled = try repository.rollUp(RollUp.packsToRollUp(repository.packs()))
                if rolled > 0 { options.logger.debug("rolled \(rolled) objects into one pack") }
            } catch {
                options.logger.notice("rolling up packs failed: \(error.message)")
            }
        }
    }

    /// Removes what killed writers and packers left, packs every loose object, and rolls the
    /// packs that roll up (``RollUp/rollsUp(_:)``) into as few as ``RollUp/objectsPerPack``
    /// allows, waiting for any roll-up another process is doing, then removes the assets no
    /// history needs (``collectAssets(gracePeriod:)``). Returns how many loose objects were
    /// packed.
    func pack() throws -> Int {
        let freesObjects = try compactBeforePacking()
        let packed = try write { session in
            try packingLock.withLock {
                session.repository.removeLeftoverTemporaryFiles()
                return try git("packing") { () throws(GitError) in try session.repository.packLooseObjects() }
            }
        }
        if freesObjects {
            try freeUnreachableObjects()
        } else {
            try rollUpAllPacks()
        }
        // Both ran on handles of their own: the store's handle lets go of the packs they
        // removed now rather than at its next use, which may be long after.
        try read { session in session.repository.forgetRemovedPacks() }
        try StoreThread.checkCancellation()
        _ = try collectAssets()
        return packed
    }

    private func rollUpAllPacks() throws {
        try packingLock.withLock {
            let repository = try git("rolling packs into one") { () throws(GitError) in try Repository.openBare(at: path) }
            // A cancelled pack() stops between roll-ups; each one done is whole and read back.
            for group in RollUp.groupsToRollUp(repository.packs()) {
                try StoreThread.checkCancellation()
                _ = try git("rolling packs into one") { () throws(GitError) in try repository.rollUp(group) }
            }
        }
    }

    /// How long a write waits for a git lock file held by someone else before failing.
    static var lockWaitLimit: TimeInterval { 5 }
}
