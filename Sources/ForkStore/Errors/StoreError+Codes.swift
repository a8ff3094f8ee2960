import Foundation

// One block per code: the code under the error's own name, so `catch StoreError.forkNotFound`
// reads as it did when StoreError was an enum, and the factory that makes the error, with the
// message it carries and the properties it sets.

extension StoreError {
    // MARK: Opening and creating

    /// The code of ``storeNotFound(path:)``, for `catch StoreError.storeNotFound`.
    public static let storeNotFound = Code.storeNotFound
    /// Nothing exists at the path given to ``Store/open(at:options:)-35i58``. Sets ``path``.
    public static func storeNotFound(path: String) -> StoreError {
        StoreError(
            .storeNotFound, "No store at '\(path)'. Create one first (for the sample: forknotes init --store \(path)).", path: path)
    }

    /// The code of ``notAStore(path:reason:)``, for `catch StoreError.notAStore`.
    public static let notAStore = Code.notAStore
    /// The path exists but is not a ForkStore store. Sets ``path`` and ``reason``; and
    /// ``underlyingCode`` when libgit2 could not open it as a repository.
    public static func notAStore(path: String, reason: String) -> StoreError {
        notAStore(path: path, reason: reason, underlyingCode: nil)
    }

    static func notAStore(path: String, reason: String, underlyingCode: Int32?) -> StoreError {
        StoreError(
            .notAStore, "'\(path)' is not a ForkStore store: \(reason).", underlyingCode: underlyingCode, reason: reason, path: path)
    }

    /// The code of ``storeAlreadyExists(path:)``, for `catch StoreError.storeAlreadyExists`.
    public static let storeAlreadyExists = Code.storeAlreadyExists
    /// ``Store/create(at:options:)-6p8hr`` found a store or other files already there. Sets ``path``.
    public static func storeAlreadyExists(path: String) -> StoreError {
        StoreError(
            .storeAlreadyExists, "'\(path)' already exists and is not empty; choose another path or open the existing store.",
            path: path)
    }

    /// The code of ``newerFormatVersion(found:supported:)``, for `catch StoreError.newerFormatVersion`.
    public static let newerFormatVersion = Code.newerFormatVersion
    /// The store, or a commit in it, was written in a newer on-disk format than this library
    /// reads. Sets ``foundVersion`` and ``supportedVersion`` (format versions).
    public static func newerFormatVersion(found: Int, supported: Int) -> StoreError {
        StoreError(
            .newerFormatVersion,
            "Written in on-disk format version \(found), but this build of ForkStore reads up to \(supported). Update the app.",
            foundVersion: found, supportedVersion: supported)
    }

    // MARK: Forks and commits

    /// The code of ``invalidForkName(_:reason:)``, for `catch StoreError.invalidForkName`.
    public static let invalidForkName = Code.invalidForkName
    /// A fork name breaks git's reference-name rules or ForkStore's own. Sets ``fork`` (the
    /// name refused) and ``reason``.
    public static func invalidForkName(_ name: String, reason: String) -> StoreError {
        StoreError(.invalidForkName, "Invalid fork name '\(name)': \(reason).", reason: reason, fork: name)
    }

    /// The code of ``forkNotFound(_:)``, for `catch StoreError.forkNotFound`.
    public static let forkNotFound = Code.forkNotFound
    /// No fork has this name. Sets ``fork``.
    public static func forkNotFound(_ name: String) -> StoreError {
        StoreError(.forkNotFound, "No fork named '\(name)'.", fork: name)
    }

    /// The code of ``forkAlreadyExists(_:)``, for `catch StoreError.forkAlreadyExists`.
    public static let forkAlreadyExists = Code.forkAlreadyExists
    /// A fork with this name exists already. Sets ``fork``.
    public static func forkAlreadyExists(_ name: String) -> StoreError {
        StoreError(.forkAlreadyExists, "A fork named '\(name)' already exists.", fork: name)
    }

    /// The code of ``protectedFork(_:)``, for `catch StoreError.protectedFork`.
    public static let protectedFork = Code.protectedFork
    /// The fork cannot be changed this way: `main` is never deleted, and `cloud` (what the
    /// remote holds) is written only by the exchange. Sets ``fork``.
    public static func protectedFork(_ name: String) -> StoreError {
        let message =
            name == Fork.cloud.name
            ? "The fork 'cloud' holds what the remote holds, and only the exchange writes it; write to main or another fork."
            : "The fork '\(name)' is protected and cannot be changed this way."
        return StoreError(.protectedFork, message, fork: name)
    }

    /// The code of ``commitNotFound(_:)``, for `catch StoreError.commitNotFound`.
    public static let commitNotFound = Code.commitNotFound
    /// No commit has this id, or the text is not a commit id. Sets ``object`` (the text).
    public static func commitNotFound(_ text: String) -> StoreError {
        StoreError(.commitNotFound, "No commit '\(text)' in this store.", object: text)
    }

    // MARK: Reading data

    /// The code of ``unknownModelVersion(found:known:commit:)``, for `catch StoreError.unknownModelVersion`.
    public static let unknownModelVersion = Code.unknownModelVersion
    /// A commit is stamped with a model version newer than the type knows. Nothing was
    /// decoded. Sets ``foundVersion``, ``supportedVersion`` (the newest version known) and
    /// ``commit``.
    public static func unknownModelVersion(found: Int, known: Int, commit: CommitID) -> StoreError {
        StoreError(
            .unknownModelVersion,
            "Commit \(commit.short) holds data of model version \(found), but this app knows model version \(known) at most. Nothing was read; update the app to read it.",
            commit: commit, foundVersion: found, supportedVersion: known)
    }

    /// The code of ``missingModelVersion(commit:)``, for `catch StoreError.missingModelVersion`.
    public static let missingModelVersion = Code.missingModelVersion
    /// A commit has no `Model-Version` trailer, so its data cannot be read safely. Sets
    /// ``commit``.
    public static func missingModelVersion(commit: CommitID) -> StoreError {
        StoreError(
            .missingModelVersion, "Commit \(commit.short) has no Model-Version trailer, so its data cannot be read safely.",
            commit: commit)
    }

    /// The code of ``malformedCommit(commit:reason:)``, for `catch StoreError.malformedCommit`.
    public static let malformedCommit = Code.malformedCommit
    /// A commit's message or stamp breaks the format's trailer rules (a stamp twice, a value
    /// not in its one written form, a message git reads in two ways), so its data is not
    /// read. Sets ``commit`` and ``reason``.
    public static func malformedCommit(commit: CommitID, reason: String) -> StoreError {
        StoreError(
            .malformedCommit, "Commit \(commit.short) is malformed: \(reason). Its data was not read.", reason: reason, commit: commit)
    }

    /// The code of ``invalidJSON(commit:path:reason:)``, for `catch StoreError.invalidJSON`.
    public static let invalidJSON = Code.invalidJSON
    /// A stored blob is not valid JSON. Sets ``commit``, ``path`` and ``reason``.
    public static func invalidJSON(commit: CommitID, path: String, reason: String) -> StoreError {
        StoreError(
            .invalidJSON, "'\(path)' in commit \(commit.short) is not valid JSON: \(reason).", reason: reason, path: path,
            commit: commit)
    }

    /// The code of ``undecodableValue(commit:path:reason:)``, for `catch StoreError.undecodableValue`.
    public static let undecodableValue = Code.undecodableValue
    /// A stored blob is valid JSON but does not decode as the resource type. Sets ``commit``,
    /// ``path`` and ``reason``.
    public static func undecodableValue(commit: CommitID, path: String, reason: String) -> StoreError {
        StoreError(
            .undecodableValue, "'\(path)' in commit \(commit.short) does not decode as the resource type: \(reason).",
            reason: reason, path: path, commit: commit)
    }

    /// The code of ``missingObject(id:reason:)``, for `catch StoreError.missingObject`.
    public static let missingObject = Code.missingObject
    /// An object the store needs is missing from the object database or damaged. Sets
    /// ``object`` (its id) and ``reason``; ``operation`` and ``underlyingCode`` too when
    /// libgit2 reported it.
    public static func missingObject(id: String, reason: String) -> StoreError {
        missingObject(id: id, reason: reason, operation: nil, underlyingCode: nil)
    }

    static func missingObject(id: String, reason: String, operation: String?, underlyingCode: Int32?) -> StoreError {
        StoreError(
            .missingObject, "Object \(id) is missing or damaged: \(reason).", operation: operation, underlyingCode: underlyingCode,
            reason: reason, object: id)
    }

    // MARK: Writing and merging

    /// The code of ``encodingFailed(reason:)``, for `catch StoreError.encodingFailed`.
    public static let encodingFailed = Code.encodingFailed
    /// The value could not be encoded to JSON. Sets ``reason``.
    public static func encodingFailed(reason: String) -> StoreError {
        StoreError(.encodingFailed, "The value could not be encoded: \(reason).", reason: reason)
    }

    /// The code of ``mergeFailed(reason:)``, for `catch StoreError.mergeFailed`.
    public static let mergeFailed = Code.mergeFailed
    /// A merge strategy threw. Sets ``reason`` (what it threw, described).
    public static func mergeFailed(reason: String) -> StoreError {
        StoreError(.mergeFailed, "The merge strategy failed: \(reason).", reason: reason)
    }

    /// The code of ``concurrentUpdate(fork:attempts:)``, for `catch StoreError.concurrentUpdate`.
    public static let concurrentUpdate = Code.concurrentUpdate
    /// Other writers kept moving the fork; the write was given up after this many attempts.
    /// Sets ``fork``.
    public static func concurrentUpdate(fork: String, attempts: Int) -> StoreError {
        StoreError(
            .concurrentUpdate, "Gave up writing fork '\(fork)' after \(attempts) attempts: other writers kept moving it.", fork: fork)
    }

    /// The code of ``locked(path:)``, for `catch StoreError.locked`.
    public static let locked = Code.locked
    /// Another program holds git's lock file at `path` (a running `git` command, say): the
    /// write waited five seconds for it, then gave up, and nothing was written. Retrying later
    /// succeeds once the program is done. A lock file counts as left over, and is removed, only
    /// by the rules of the store's concurrency article. Sets ``path`` (the lock file).
    public static func locked(path: String) -> StoreError {
        StoreError(
            .locked,
            "Another program holds git's lock file '\(path)' (a running git command?); the write waited \(Int(StoreEngine.lockWaitLimit)) s for it and wrote nothing. Try again when it is done. A lock file no process has open and nobody has touched for \(Int(GitLockFiles.staleAge / 60)) minutes counts as left by a crash and is removed.",
            path: path)
    }

    // MARK: The repository and the disk

    /// The code of ``repository(operation:reason:underlyingCode:)``, for `catch StoreError.repository`.
    public static let repository = Code.repository
    /// The underlying git repository failed. Sets ``operation`` (what the store was doing),
    /// ``reason`` (libgit2's message) and ``underlyingCode`` (libgit2's error code, when
    /// libgit2 failed).
    public static func repository(operation: String, reason: String, underlyingCode: Int32? = nil) -> StoreError {
        StoreError(
            .repository, "The repository failed during \(operation): \(reason).", operation: operation,
            underlyingCode: underlyingCode, reason: reason)
    }

    /// The code of ``fileSystem(path:reason:)``, for `catch StoreError.fileSystem`.
    public static let fileSystem = Code.fileSystem
    /// A file-system operation around the repository failed (the lock file, the manifest).
    /// Sets ``path`` and ``reason``; ``underlyingCode`` (`errno`) when a system call failed.
    public static func fileSystem(path: String, reason: String) -> StoreError {
        fileSystem(path: path, reason: reason, errno: nil)
    }

    static func fileSystem(path: String, reason: String, errno: Int32?) -> StoreError {
        StoreError(.fileSystem, "File-system error at '\(path)': \(reason).", underlyingCode: errno, reason: reason, path: path)
    }

    /// A system call failed at `path` with `errno`.
    static func fileSystem(path: String, errno code: Int32) -> StoreError {
        fileSystem(path: path, reason: String(cString: strerror(code)), errno: code)
    }

    /// Foundation failed at `path`; its POSIX code, when it names one, is kept.
    static func fileSystem(path: String, error: any Error) -> StoreError {
        let error = error as NSError
        let posix = [error, error.userInfo[NSUnderlyingErrorKey] as? NSError].compactMap { $0 }
            .first { $0.domain == NSPOSIXErrorDomain }
        return fileSystem(path: path, reason: error.localizedDescription, errno: posix.map { Int32($0.code) })
    }

    /// The code of ``readOnlyStore(path:)``, for `catch StoreError.readOnlyStore`.
    public static let readOnlyStore = Code.readOnlyStore
    /// The store can be read but not written by this process: its folder is read-only for this
    /// user or on a read-only file system. Nothing was changed; reads go on working. Sets
    /// ``path``; ``underlyingCode`` (`errno`) when a system call said so.
    public static func readOnlyStore(path: String) -> StoreError {
        readOnlyStore(path: path, errno: nil)
    }

    static func readOnlyStore(path: String, errno: Int32?) -> StoreError {
        StoreError(
            .readOnlyStore, "The store at '\(path)' is read-only for this user: it can be read, but nothing can be written to it.",
            underlyingCode: errno, path: path)
    }

    // MARK: Records

    /// The code of ``recordNotFound(id:fork:)``, for `catch StoreError.recordNotFound`.
    public static let recordNotFound = Code.recordNotFound
    /// No record has this id on the fork. Sets ``recordID`` and ``fork``.
    public static func recordNotFound(id: String, fork: String) -> StoreError {
        StoreError(.recordNotFound, "No record with id '\(id)' on fork '\(fork)'.", fork: fork, recordID: id)
    }

    /// The code of ``recordTooLarge(id:size:limit:)``, for `catch StoreError.recordTooLarge`.
    public static let recordTooLarge = Code.recordTooLarge
    /// A record's encoding is larger than ``StoreOptions/maximumRecordSize``; nothing was
    /// written. Sets ``recordID``, ``size`` and ``limit``.
    public static func recordTooLarge(id: String, size: Int, limit: Int) -> StoreError {
        StoreError(
            .recordTooLarge, "Record '\(id)' is \(size) bytes encoded, over the limit of \(limit) bytes; nothing was written.",
            recordID: id, size: size, limit: limit)
    }

    // MARK: Migrations

    /// The code of ``invalidMigrationPlan(reason:)``, for `catch StoreError.invalidMigrationPlan`.
    public static let invalidMigrationPlan = Code.invalidMigrationPlan
    /// The resource type's ``MigrationPlan`` has a gap or does not reach its model version.
    /// Sets ``reason``.
    public static func invalidMigrationPlan(reason: String) -> StoreError {
        StoreError(.invalidMigrationPlan, "Invalid migration plan: \(reason).", reason: reason)
    }

    /// The code of ``unsupportedModelVersion(found:oldest:commit:)``, for `catch StoreError.unsupportedModelVersion`.
    public static let unsupportedModelVersion = Code.unsupportedModelVersion
    /// A commit is older than the oldest model version the migration plan can read. Sets
    /// ``foundVersion``, ``supportedVersion`` (the oldest version migrated) and ``commit``.
    public static func unsupportedModelVersion(found: Int, oldest: Int, commit: CommitID) -> StoreError {
        StoreError(
            .unsupportedModelVersion,
            "Commit \(commit.short) holds data of model version \(found), older than the oldest version this app migrates (\(oldest)).",
            commit: commit, foundVersion: found, supportedVersion: oldest)
    }

    /// The code of ``migrationFailed(commit:path:fromVersion:reason:)``, for `catch StoreError.migrationFailed`.
    public static let migrationFailed = Code.migrationFailed
    /// A migration stage threw while upgrading a commit's data. Sets ``commit``, ``path``,
    /// ``foundVersion`` (the version migrated from) and ``reason``.
    public static func migrationFailed(commit: CommitID, path: String, fromVersion: Int, reason: String) -> StoreError {
        StoreError(
            .migrationFailed, "Migrating '\(path)' of commit \(commit.short) from model version \(fromVersion) failed: \(reason).",
            reason: reason, path: path, commit: commit, foundVersion: fromVersion)
    }

    // MARK: Sharing and data from elsewhere

    /// The code of ``rejectedCommit(commit:path:rule:)``, for `catch StoreError.rejectedCommit`.
    public static let rejectedCommit = Code.rejectedCommit
    /// A commit that arrived from elsewhere (a remote) breaks a rule of the format at `path`
    /// (empty for the commit itself). Nothing from it was merged, and `cloud` and `main` did
    /// not move; the exchange keeps it under `refs/forkstore/quarantine` for inspection. Sets
    /// ``commit``, ``path`` and ``reason`` (the rule broken).
    public static func rejectedCommit(commit: CommitID, path: String, rule: String) -> StoreError {
        StoreError(
            .rejectedCommit,
            "Commit \(commit.short) was refused\(path.isEmpty ? "" : " at '\(path)'"): \(rule). Nothing from it was merged.",
            reason: rule, path: path, commit: commit)
    }

    /// The code of ``invalidKey(reason:)``, for `catch StoreError.invalidKey`.
    public static let invalidKey = Code.invalidKey
    /// An ssh key could not be used: its reason says why. Sets ``reason``.
    public static func invalidKey(reason: String) -> StoreError {
        StoreError(.invalidKey, "The ssh key cannot be used: \(reason).", reason: reason)
    }

    // MARK: History

    /// The code of ``compactionRefused(fork:reason:)``, for `catch StoreError.compactionRefused`.
    public static let compactionRefused = Code.compactionRefused
    /// The history could not be compacted as asked: the horizon is not on the fork's
    /// first-parent history, or the store is shared and this replica signs as no owner (see
    /// <doc:HistoryHorizon>). Nothing was changed. Sets ``fork`` (when one fork is concerned)
    /// and ``reason``.
    public static func compactionRefused(fork: String?, reason: String) -> StoreError {
        StoreError(
            .compactionRefused, "The history\(fork.map { " of '\($0)'" } ?? "") was not compacted: \(reason).",
            reason: reason, fork: fork)
    }

    // MARK: Assets

    /// The code of ``assetNotLocal(id:)``, for `catch StoreError.assetNotLocal`.
    public static let assetNotLocal = Code.assetNotLocal
    /// The asset's bytes are not in this store's asset folder yet: fetch them through the
    /// exchange (`Exchange.fetchAsset`). Sets ``object`` (the asset's id).
    public static func assetNotLocal(id: AssetID) -> StoreError {
        StoreError(.assetNotLocal, "Asset \(id) is not in this store yet; fetch it from a remote first.", object: id.oid)
    }

    /// The code of ``assetTooLarge(size:limit:)``, for `catch StoreError.assetTooLarge`.
    public static let assetTooLarge = Code.assetTooLarge
    /// An asset is larger than ``StoreOptions/maximumAssetSize``; nothing was added. Sets
    /// ``size`` (as far as it was read) and ``limit``.
    public static func assetTooLarge(size: Int, limit: Int) -> StoreError {
        StoreError(
            .assetTooLarge, "The asset is at least \(size) bytes, over the limit of \(limit) bytes; nothing was added.",
            size: size, limit: limit)
    }

    /// The code of ``assetCorrupt(id:reason:)``, for `catch StoreError.assetCorrupt`.
    public static let assetCorrupt = Code.assetCorrupt
    /// An asset's bytes do not hash to its id, or have the wrong size: they were refused and
    /// removed. Sets ``object`` (the asset's id) and ``reason``.
    public static func assetCorrupt(id: AssetID, reason: String) -> StoreError {
        StoreError(.assetCorrupt, "The bytes of asset \(id) were refused: \(reason).", reason: reason, object: id.oid)
    }
}
