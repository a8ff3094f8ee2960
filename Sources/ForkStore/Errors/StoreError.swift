import Foundation

/// Everything that can go wrong in a store: a ``code`` to act on, and what failed and why.
///
/// Match the codes you can act on in `catch`, as GRDB's `DatabaseError` is matched; a code
/// added in a later version breaks no app's `catch` or `switch`:
///
/// ```swift
/// do {
///     let notes = try store.value()
/// } catch StoreError.unknownModelVersion {
///     print("Written by a newer version of the app. Update the app.")
/// } catch let error as StoreError where error.code == .locked {
///     print("Another program holds \(error.path ?? "a lock file"); try again later.")
/// }
/// ```
///
/// The properties after ``message`` hold what a code is about, for code that acts on it; each
/// code's factory (``unknownModelVersion(found:known:commit:)``, …) says which it sets. See
/// <doc:Errors> for every code.
///
/// No error ever carries a credential, and none is thrown after a partial write: a failed
/// operation leaves the store as it was.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, to match on. Compare it (`error.code == .forkNotFound`) or match
    /// errors by it (`catch StoreError.forkNotFound`).
    public let code: Code
    /// What failed and why, in one or two sentences for a person, as it is: text from data or
    /// a remote is not escaped here (``description`` escapes it). Never match on its words;
    /// match on ``code``.
    public let message: String
    /// What the store was doing when libgit2 failed (``Code/repository``,
    /// ``Code/missingObject``), for example "reading fork 'main'"; nil for other codes.
    public let operation: String?
    /// libgit2's error code (`GIT_ENOTFOUND` is -3, `GIT_ELOCKED` -14, …) when a libgit2 call
    /// failed, or the system's `errno` when a system call failed; nil when neither did.
    public let underlyingCode: Int32?
    /// Why, as libgit2, the system, the decoder or the rule broken said it: the part of
    /// ``message`` after the colon. For people, like ``message``.
    public let reason: String?
    /// The store's folder or the file concerned, for codes about the disk (``Code/storeNotFound``,
    /// ``Code/locked``, ``Code/fileSystem``, …); for codes about a commit's data
    /// (``Code/invalidJSON``, ``Code/rejectedCommit``, …), the path inside the commit's tree,
    /// empty for the commit itself.
    public let path: String?
    /// The fork concerned: its name, as given when it was refused by ``Code/invalidForkName``.
    public let fork: String?
    /// The commit whose data or stamps failed.
    public let commit: CommitID?
    /// The record concerned (``Code/recordNotFound``, ``Code/recordTooLarge``).
    public let recordID: String?
    /// What the store looked for and did not find: a missing object's id
    /// (``Code/missingObject``), the text that named no commit (``Code/commitNotFound``), or
    /// the asset concerned, as its `sha256:` id (``Code/assetNotLocal``, ``Code/assetCorrupt``).
    public let object: String?
    /// The version the data carries: its model version (``Code/unknownModelVersion``,
    /// ``Code/unsupportedModelVersion``, ``Code/migrationFailed``) or its on-disk format
    /// version (``Code/newerFormatVersion``).
    public let foundVersion: Int?
    /// The version this app reads up to (``Code/unknownModelVersion``: the newest model version
    /// it knows; ``Code/newerFormatVersion``: the newest format it reads) or from
    /// (``Code/unsupportedModelVersion``: the oldest model version its migrations start at).
    public let supportedVersion: Int?
    /// A record's encoded size in bytes (``Code/recordTooLarge``), or an asset's
    /// (``Code/assetTooLarge``).
    public let size: Int?
    /// The largest size allowed, in bytes (``Code/recordTooLarge``, ``Code/assetTooLarge``).
    public let limit: Int?

    init(
        _ code: Code, _ message: String, operation: String? = nil, underlyingCode: Int32? = nil, reason: String? = nil,
        path: String? = nil, fork: String? = nil, commit: CommitID? = nil, recordID: String? = nil, object: String? = nil,
        foundVersion: Int? = nil, supportedVersion: Int? = nil, size: Int? = nil, limit: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.operation = operation
        self.underlyingCode = underlyingCode
        self.reason = reason
        self.path = path
        self.fork = fork
        self.commit = commit
        self.recordID = recordID
        self.object = object
        self.foundVersion = foundVersion
        self.supportedVersion = supportedVersion
        self.size = size
        self.limit = limit
    }

    /// What failed and why (``message``), with any text that came from data or a remote
    /// escaped so it cannot steer a terminal (see `TerminalText`).
    public var description: String { TerminalText.escaping(message) }
}

extension StoreError {
    /// What went wrong, as a stable name: a new code can be added in any version without
    /// breaking a `switch` or `catch` of an app, which matches the codes it acts on and lets
    /// the rest through.
    ///
    /// Match an error by its code in `catch` (`catch StoreError.locked`), or compare codes
    /// (`error.code == .locked`). Each code has a factory of the same name on ``StoreError``
    /// that says what it means.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, for example `"forkNotFound"`: stable across versions, so it may be
        /// logged, stored or compared.
        public let rawValue: String

        /// The code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's name.
        public var description: String { rawValue }

        /// Whether `error` is a ``StoreError`` with this code: what lets
        /// `catch StoreError.forkNotFound` match. An exchange's error that wraps a store's
        /// error (`ExchangeError.store`) does not match; match its own codes instead.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StoreError)?.code == code
        }

        /// ``StoreError/storeNotFound(path:)``.
        public static let storeNotFound = Code(rawValue: "storeNotFound")
        /// ``StoreError/notAStore(path:reason:)``.
        public static let notAStore = Code(rawValue: "notAStore")
        /// ``StoreError/storeAlreadyExists(path:)``.
        public static let storeAlreadyExists = Code(rawValue: "storeAlreadyExists")
        /// ``StoreError/newerFormatVersion(found:supported:)``.
        public static let newerFormatVersion = Code(rawValue: "newerFormatVersion")
        /// ``StoreError/invalidForkName(_:reason:)``.
        public static let invalidForkName = Code(rawValue: "invalidForkName")
        /// ``StoreError/forkNotFound(_:)``.
        public static let forkNotFound = Code(rawValue: "forkNotFound")
        /// ``StoreError/forkAlreadyExists(_:)``.
        public static let forkAlreadyExists = Code(rawValue: "forkAlreadyExists")
        /// ``StoreError/protectedFork(_:)``.
        public static let protectedFork = Code(rawValue: "protectedFork")
        /// ``StoreError/commitNotFound(_:)``.
        public static let commitNotFound = Code(rawValue: "commitNotFound")
        /// ``StoreError/unknownModelVersion(found:known:commit:)``.
        public static let unknownModelVersion = Code(rawValue: "unknownModelVersion")
        /// ``StoreError/missingModelVersion(commit:)``.
        public static let missingModelVersion = Code(rawValue: "missingModelVersion")
        /// ``StoreError/malformedCommit(commit:reason:)``.
        public static let malformedCommit = Code(rawValue: "malformedCommit")
        /// ``StoreError/invalidJSON(commit:path:reason:)``.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// ``StoreError/undecodableValue(commit:path:reason:)``.
        public static let undecodableValue = Code(rawValue: "undecodableValue")
        /// ``StoreError/missingObject(id:reason:)``.
        public static let missingObject = Code(rawValue: "missingObject")
        /// ``StoreError/encodingFailed(reason:)``.
        public static let encodingFailed = Code(rawValue: "encodingFailed")
        /// ``StoreError/mergeFailed(reason:)``.
        public static let mergeFailed = Code(rawValue: "mergeFailed")
        /// ``StoreError/concurrentUpdate(fork:attempts:)``.
        public static let concurrentUpdate = Code(rawValue: "concurrentUpdate")
        /// ``StoreError/locked(path:)``.
        public static let locked = Code(rawValue: "locked")
        /// ``StoreError/repository(operation:reason:underlyingCode:)``.
        public static let repository = Code(rawValue: "repository")
        /// ``StoreError/fileSystem(path:reason:)``.
        public static let fileSystem = Code(rawValue: "fileSystem")
        /// ``StoreError/readOnlyStore(path:)``.
        public static let readOnlyStore = Code(rawValue: "readOnlyStore")
        /// ``StoreError/recordNotFound(id:fork:)``.
        public static let recordNotFound = Code(rawValue: "recordNotFound")
        /// ``StoreError/invalidMigrationPlan(reason:)``.
        public static let invalidMigrationPlan = Code(rawValue: "invalidMigrationPlan")
        /// ``StoreError/unsupportedModelVersion(found:oldest:commit:)``.
        public static let unsupportedModelVersion = Code(rawValue: "unsupportedModelVersion")
        /// ``StoreError/migrationFailed(commit:path:fromVersion:reason:)``.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// ``StoreError/recordTooLarge(id:size:limit:)``.
        public static let recordTooLarge = Code(rawValue: "recordTooLarge")
        /// ``StoreError/rejectedCommit(commit:path:rule:)``.
        public static let rejectedCommit = Code(rawValue: "rejectedCommit")
        /// ``StoreError/invalidKey(reason:)``.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// ``StoreError/assetNotLocal(id:)``.
        public static let assetNotLocal = Code(rawValue: "assetNotLocal")
        /// ``StoreError/assetTooLarge(size:limit:)``.
        public static let assetTooLarge = Code(rawValue: "assetTooLarge")
        /// ``StoreError/assetCorrupt(id:reason:)``.
        public static let assetCorrupt = Code(rawValue: "assetCorrupt")
        /// ``StoreError/compactionRefused(fork:reason:)``.
        public static let compactionRefused = Code(rawValue: "compactionRefused")

        /// Every code this version of ForkStore throws (a test checks that none is missing and
        /// that their names differ).
        package static let all: [Code] = [
            storeNotFound, notAStore, storeAlreadyExists, newerFormatVersion, invalidForkName, forkNotFound,
            forkAlreadyExists, protectedFork, commitNotFound, unknownModelVersion, missingModelVersion, malformedCommit,
            invalidJSON, undecodableValue, missingObject, encodingFailed, mergeFailed, concurrentUpdate, locked,
            repository, fileSystem, readOnlyStore, recordNotFound, invalidMigrationPlan, unsupportedModelVersion,
            migrationFailed, recordTooLarge, rejectedCommit, invalidKey, assetNotLocal, assetTooLarge, assetCorrupt,
            compactionRefused,
        ]
    }
}
