import ForkStoreGit

/// One store's view of its repository, used only while the store's lock is held: heads,
/// commits, stamps, trees and blobs, with libgit2 failures turned into ``StoreError``s that
/// name what was being read.
///
/// Not `Sendable`, like GRDB's `Database`: libgit2 allows one thread at a time per repository
/// object, so the session lives inside its ``StoreEngine``'s mutex and is reached only through
/// the engine's `read`, `write` and `advance`.
final class StoreSession {
    let repository: Repository
    let model: StoreModel
    let signature: Signature

    init(repository: Repository, model: StoreModel, signature: Signature) {
        self.repository = repository
        self.model = model
        self.signature = signature
    }

    // MARK: Commits

    /// The newest commit of a fork.
    func head(of fork: Fork) throws(StoreError) -> Commit {
        guard let id = try headID(of: fork) else { throw StoreError.forkNotFound(fork.name) }
        return try commit(id)
    }

    /// The newest commit of a fork, after checking this build can read it.
    func readableHead(of fork: Fork) throws(StoreError) -> Commit {
        let head = try head(of: fork)
        try checkStamps(of: head)
        return head
    }

    /// The id a fork points at, or nil when there is no such fork.
    func headID(of fork: Fork) throws(StoreError) -> ObjectID? {
        try git("reading fork '\(fork)'") { () throws(GitError) in try repository.resolveReference(fork.referenceName) }
    }

    /// The head commit of every fork that can be read (a fork whose head is damaged is left
    /// out: it must not stop writes to the others).
    func forkHeads() throws(StoreError) -> [Commit] {
        let references = try git("listing forks") { () throws(GitError) in
            try repository.references(withPrefix: Fork.referencePrefix)
        }
        return references.compactMap { try? commit($0.target) }
    }

    /// A commit the caller named by id: a missing one is ``StoreError/commitNotFound(_:)``.
    func existingCommit(_ id: CommitID) throws(StoreError) -> Commit {
        do {
            return try commit(id.objectID)
        } catch .missingObject {
            throw StoreError.commitNotFound(id.hex)
        }
    }

    func commit(_ id: ObjectID) throws(StoreError) -> Commit {
        try git("reading commit \(id.hex.prefix(10))", object: id.hex) { () throws(GitError) in
            Commit(try repository.readCommit(id))
        }
    }

    /// Throws unless this build can read the commit (see ``StoreModel/checkStamps(of:)``).
    func checkStamps(of commit: Commit) throws(StoreError) {
        try model.checkStamps(of: commit)
    }

    /// Refuses what a merge of `head` into `base` would bring in if any of it is a commit this
    /// build cannot read, even one it would only fast-forward over: the fork would otherwise
    /// hold data the app cannot open.
    func checkStamps(ofCommitsIn head: ObjectID, notIn base: ObjectID?) throws(StoreError) {
        for id in try walk(from: head, hiding: base) {
            try checkStamps(of: commit(id))
        }
    }

    /// Commits reachable from `head` but not from `hidden`, newest first.
    func walk(from head: ObjectID, hiding hidden: ObjectID? = nil, limit: Int? = nil) throws(StoreError) -> [ObjectID] {
        try git("walking the history from \(head.hex.prefix(10))", object: "in the history of \(head.hex.prefix(10))") {
            () throws(GitError) in try repository.walk(from: head, hiding: hidden, limit: limit)
        }
    }

    /// The latest write on `head`'s side of a merge: of the commits reachable from `head` but
    /// from none of `bases`, the highest-ranked one that is not a merge; `head` itself when
    /// there is none. Comparing the two sides' latest writes, not their heads, makes "the later
    /// write wins" hold even when one side merged other work after its last edit.
    func latestWrite(from head: Commit, since bases: [Commit]) throws(StoreError) -> Commit {
        let ids = try git("walking the history from \(head.id.short)") { () throws(GitError) in
            try repository.walk(from: head.id.objectID, hiding: bases.map(\.id.objectID))
        }
        var latest: Commit?
        for id in ids {
            let commit = try commit(id)
            guard commit.parents.count <= 1 else { continue }
            if latest.map({ commit.outranks($0) }) ?? true { latest = commit }
        }
        return latest ?? head
    }

    /// The best common ancestors of two commits, highest rank first so every replica folds
    /// them in the same order; empty for unrelated histories.
    func mergeBases(_ one: Commit, _ two: Commit) throws(StoreError) -> [Commit] {
        let ids = try git("finding the merge base of \(one.id.short) and \(two.id.short)") { () throws(GitError) in
            try repository.mergeBases(one.id.objectID, two.id.objectID)
        }
        var bases: [Commit] = []
        for id in ids { bases.append(try commit(id)) }
        return bases.sorted { $0.outranks($1) }
    }

    // MARK: Trees and blobs

    /// The entry at `path` in a tree, or nil.
    func entry(atPath path: String, inTree tree: ObjectID) throws(StoreError) -> TreeEntry? {
        try git("reading \(path)", object: tree.hex) { () throws(GitError) in
            try repository.entry(atPath: path, inTree: tree)
        }
    }

    func treeEntries(_ tree: ObjectID) throws(StoreError) -> [TreeEntry] {
        try git("reading tree \(tree.hex.prefix(10))", object: tree.hex) { () throws(GitError) in
            try repository.treeEntries(tree)
        }
    }

    /// The blobs that differ between two trees (nil: an empty tree).
    func differences(from old: ObjectID?, to new: ObjectID?) throws(StoreError) -> [TreeDifference] {
        try git("comparing trees") { () throws(GitError) in try repository.differences(from: old, to: new) }
    }

    func readBlob(_ blob: ObjectID, path: String) throws(StoreError) -> [UInt8] {
        try git("reading \(path)", object: blob.hex) { () throws(GitError) in try repository.readBlob(blob) }
    }

    func writeBlob(_ bytes: [UInt8], path: String) throws(StoreError) -> ObjectID {
        try git("writing \(path)") { () throws(GitError) in try repository.writeBlob(bytes) }
    }

    func writeTree(_ entries: [TreeEntry]) throws(StoreError) -> ObjectID {
        try git("writing a tree") { () throws(GitError) in try repository.writeTree(entries) }
    }

    /// `tree` with `changes` applied; only the trees on the changed paths are rewritten.
    func updatedTree(_ tree: ObjectID, applying changes: [TreeChange]) throws(StoreError) -> ObjectID {
        try git("writing the records tree") { () throws(GitError) in
            try repository.updatedTree(from: tree, applying: changes)
        }
    }
}

@available(*, unavailable, message: "a store session is used only inside its engine's lock")
extension StoreSession: Sendable {}
