/// Everything that can go wrong in a store, with what failed and why.
///
/// Match the case you can act on in `catch`:
///
/// ```swift
/// do {
///     let notes = try store.value()
/// } catch StoreError.unknownModelVersion(let found, let known, _) {
///     print("Written by model version \(found); this app knows \(known). Update the app.")
/// }
/// ```
///
/// No case ever carries a credential, and none is thrown after a partial write: a failed
/// operation leaves the store as it was.
public enum StoreError: Error, Sendable, Equatable {
    /// Nothing exists at the path given to ``Store/open(at:options:)-35i58``.
    case storeNotFound(path: String)
    /// The path exists but is not a ForkStore store.
    case notAStore(path: String, reason: String)
    /// ``Store/create(at:options:)-6p8hr`` found a store or other files already there.
    case storeAlreadyExists(path: String)
    /// The store, or a commit in it, was written in a newer on-disk format than this library reads.
    case newerFormatVersion(found: Int, supported: Int)
    /// A fork name breaks git's reference-name rules or ForkStore's own.
    case invalidForkName(String, reason: String)
    /// No fork has this name.
    case forkNotFound(String)
    /// A fork with this name exists already.
    case forkAlreadyExists(String)
    /// The fork cannot be changed this way: `main` is never deleted, and `cloud` (what the
    /// remote holds) is written only by the exchange.
    case protectedFork(String)
    /// No commit has this id, or the text is not a commit id.
    case commitNotFound(String)
    /// A commit is stamped with a model version newer than the type knows. Nothing was decoded.
    case unknownModelVersion(found: Int, known: Int, commit: CommitID)
    /// A commit has no `Model-Version` trailer, so its data cannot be read safely.
    case missingModelVersion(commit: CommitID)
    /// A commit's message or stamp breaks the format's trailer rules (a stamp twice, a value
    /// not in its one written form, a message git reads in two ways), so its data is not read.
    case malformedCommit(commit: CommitID, reason: String)
    /// A stored blob is not valid JSON.
    case invalidJSON(commit: CommitID, path: String, reason: String)
    /// A stored blob is valid JSON but does not decode as the resource type.
    case undecodableValue(commit: CommitID, path: String, reason: String)
    /// An object the store needs is missing from the object database or damaged.
    case missingObject(id: String, reason: String)
    /// The value could not be encoded to JSON.
    case encodingFailed(reason: String)
    /// A merge strategy threw.
    case mergeFailed(reason: String)
    /// Other writers kept moving the fork; the write was given up after this many attempts.
    case concurrentUpdate(fork: String, attempts: Int)
    /// Another program holds git's lock file at `path` (a running `git` command, say): the
    /// write waited five seconds for it, then gave up, and nothing was written. Retrying later
    /// succeeds once the program is done. A lock file counts as left over, and is removed, only
    /// by the rules of the store's concurrency article.
    case locked(path: String)
    /// The underlying git repository failed: the operation and libgit2's reason.
    case repository(operation: String, reason: String)
    /// A file-system operation around the repository failed (the lock file, the manifest).
    case fileSystem(path: String, reason: String)
    /// The store can be read but not written by this process: its folder is read-only for this
    /// user or on a read-only file system. Nothing was changed; reads go on working.
    case readOnlyStore(path: String)
    /// No record has this id on the fork.
    case recordNotFound(id: String, fork: String)
    /// The resource type's ``MigrationPlan`` has a gap or does not reach its model version.
    case invalidMigrationPlan(reason: String)
    /// A commit is older than the oldest model version the migration plan can read.
    case unsupportedModelVersion(found: Int, oldest: Int, commit: CommitID)
    /// A migration stage threw while upgrading a commit's data.
    case migrationFailed(commit: CommitID, path: String, fromVersion: Int, reason: String)
    /// A record's encoding is larger than ``StoreOptions/maximumRecordSize``; nothing was written.
    case recordTooLarge(id: String, size: Int, limit: Int)
    /// A commit that arrived from elsewhere (a remote) breaks a rule of the format at `path`
    /// (empty for the commit itself). Nothing from it was merged, and `cloud` and `main` did
    /// not move; the exchange keeps it under `refs/forkstore/quarantine` for inspection.
    case rejectedCommit(commit: CommitID, path: String, rule: String)
    /// An ssh key could not be used: its reason says why.
    case invalidKey(reason: String)
}

extension StoreError: CustomStringConvertible {
    /// What failed and why, with any text that came from data or a remote escaped so it cannot
    /// steer a terminal (see `TerminalText`).
    public var description: String { TerminalText.escaping(message) }

    private var message: String {
        switch self {
        case .storeNotFound(let path):
            "No store at '\(path)'. Create one first (for the sample: forknotes init --store \(path))."
        case .notAStore(let path, let reason):
            "'\(path)' is not a ForkStore store: \(reason)."
        case .storeAlreadyExists(let path):
            "'\(path)' already exists and is not empty; choose another path or open the existing store."
        case .newerFormatVersion(let found, let supported):
            "Written in on-disk format version \(found), but this build of ForkStore reads up to \(supported). Update the app."
        case .invalidForkName(let name, let reason):
            "Invalid fork name '\(name)': \(reason)."
        case .forkNotFound(let name):
            "No fork named '\(name)'."
        case .forkAlreadyExists(let name):
            "A fork named '\(name)' already exists."
        case .protectedFork(let name) where name == Fork.cloud.name:
            "The fork 'cloud' holds what the remote holds, and only the exchange writes it; write to main or another fork."
        case .protectedFork(let name):
            "The fork '\(name)' is protected and cannot be changed this way."
        case .commitNotFound(let text):
            "No commit '\(text)' in this store."
        case .unknownModelVersion(let found, let known, let commit):
            "Commit \(commit.short) holds data of model version \(found), but this app knows model version \(known) at most. Nothing was read; update the app to read it."
        case .missingModelVersion(let commit):
            "Commit \(commit.short) has no Model-Version trailer, so its data cannot be read safely."
        case .malformedCommit(let commit, let reason):
            "Commit \(commit.short) is malformed: \(reason). Its data was not read."
        case .invalidJSON(let commit, let path, let reason):
            "'\(path)' in commit \(commit.short) is not valid JSON: \(reason)."
        case .undecodableValue(let commit, let path, let reason):
            "'\(path)' in commit \(commit.short) does not decode as the resource type: \(reason)."
        case .missingObject(let id, let reason):
            "Object \(id) is missing or damaged: \(reason)."
        case .encodingFailed(let reason):
            "The value could not be encoded: \(reason)."
        case .mergeFailed(let reason):
            "The merge strategy failed: \(reason)."
        case .concurrentUpdate(let fork, let attempts):
            "Gave up writing fork '\(fork)' after \(attempts) attempts: other writers kept moving it."
        case .locked(let path):
            "Another program holds git's lock file '\(path)' (a running git command?); the write waited \(Int(StoreEngine.lockWaitLimit)) s for it and wrote nothing. Try again when it is done. A lock file no process has open and nobody has touched for \(Int(GitLockFiles.staleAge / 60)) minutes counts as left by a crash and is removed."
        case .repository(let operation, let reason):
            "The repository failed during \(operation): \(reason)."
        case .fileSystem(let path, let reason):
            "File-system error at '\(path)': \(reason)."
        case .readOnlyStore(let path):
            "The store at '\(path)' is read-only for this user: it can be read, but nothing can be written to it."
        case .invalidMigrationPlan(let reason):
            "Invalid migration plan: \(reason)."
        case .unsupportedModelVersion(let found, let oldest, let commit):
            "Commit \(commit.short) holds data of model version \(found), older than the oldest version this app migrates (\(oldest))."
        case .migrationFailed(let commit, let path, let fromVersion, let reason):
            "Migrating '\(path)' of commit \(commit.short) from model version \(fromVersion) failed: \(reason)."
        case .recordNotFound(let id, let fork):
            "No record with id '\(id)' on fork '\(fork)'."
        case .invalidKey(let reason):
            "The ssh key cannot be used: \(reason)."
        case .rejectedCommit(let commit, let path, let rule):
            "Commit \(commit.short) was refused\(path.isEmpty ? "" : " at '\(path)'"): \(rule). Nothing from it was merged."
        case .recordTooLarge(let id, let size, let limit):
            "Record '\(id)' is \(size) bytes encoded, over the limit of \(limit) bytes; nothing was written."
        }
    }
}
