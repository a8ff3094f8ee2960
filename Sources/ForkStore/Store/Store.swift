import Foundation
import ForkStoreGit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A versioned resource on disk: one bare git repository holding one `Value`, with forks,
/// history and three-way merges.
///
/// ```swift
/// let store = try Store<Settings>.create(at: "/path/settings.store")
/// try store.save(Settings(theme: "dark", fontSize: 14))
/// let ui = try Fork("ui")
/// try store.createFork(ui)
/// try store.update(ui) { $0?.fontSize = 16 }
/// try store.mergeIntoMain(from: ui)
/// ```
///
/// A store is `Sendable`: use it from any task. Every libgit2 call runs behind the store's
/// lock, one at a time; writes from several processes are serialized with an OS file lock and
/// land with compare-and-swap reference updates, so no acknowledged commit is ever lost.
/// Calls block the calling thread while they touch the disk, like a database connection.
public final class Store<Value: Resource>: Sendable {
    /// The store's folder: the bare repository.
    public let path: String
    /// The options the store was opened with.
    public let options: StoreOptions

    let repository: SerializedRepository
    let writerLock: WriterLock
    let changeHub = EventHub<StoreChange>()
    /// Writes since the packing policy last looked at the object database.
    let writesSincePackCheck = Mutex(0)
    let signature: Signature

    /// What the store holds: one value, or a record collection (see ``RecordStore``).
    let kind: Manifest.Kind

    private init(path: String, repository: Repository, options: StoreOptions, kind: Manifest.Kind) throws(StoreError) {
        self.path = path
        self.options = options
        self.kind = kind
        self.writerLock = try WriterLock(gitDirectory: repository.gitDirectory)
        self.signature = Signature(name: options.authorName, email: options.authorEmail)
        self.repository = SerializedRepository(repository)
    }

    /// Opens the store at `path`.
    ///
    /// - Throws: ``StoreError/storeNotFound(path:)`` when nothing is there,
    ///   ``StoreError/notAStore(path:reason:)`` for a folder that is not a store, and
    ///   ``StoreError/newerFormatVersion(found:supported:)`` for a store of a newer format.
    public static func open(at path: String, options: StoreOptions = StoreOptions()) throws -> Store {
        try open(at: path, options: options, kind: .value)
    }

    /// Opens a store of the given kind; a store of the other kind is ``StoreError/notAStore(path:reason:)``.
    static func open(at path: String, options: StoreOptions, kind: Manifest.Kind) throws(StoreError) -> Store {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError.storeNotFound(path: path)
        }
        guard isDirectory.boolValue else {
            throw StoreError.notAStore(path: path, reason: "it is a file, not a folder")
        }
        let repository: Repository
        do {
            repository = try Repository.openBare(at: path)
        } catch {
            throw StoreError.notAStore(path: path, reason: "it is not a bare git repository (\(error.message))")
        }
        try Value.migrationPlan.validate(current: Value.modelVersion, type: String(describing: Value.self))
        let manifest = try Manifest.read(gitDirectory: repository.gitDirectory, storePath: path)
        guard manifest.resource == kind.rawValue else {
            let holds = manifest.resource == Manifest.Kind.records.rawValue
                ? "a record collection (open it with RecordStore)" : "a single value (open it with Store)"
            throw StoreError.notAStore(path: path, reason: "it holds \(holds)")
        }
        if options.fsync {
            do { try Libgit2.enableFsync() } catch { throw StoreError(error, during: "enabling fsync") }
        }
        return try Store(path: path, repository: repository, options: options, kind: kind)
    }

    /// Creates a new store at `path`: a bare repository whose `main` fork holds one empty
    /// commit. The path must not exist, or be an empty folder.
    ///
    /// The store is built in a temporary folder beside `path` and renamed into place, so a
    /// crash never leaves a half-made store behind.
    public static func create(at path: String, options: StoreOptions = StoreOptions()) throws -> Store {
        try create(at: path, options: options, kind: .value)
    }

    static func create(at path: String, options: StoreOptions, kind: Manifest.Kind) throws(StoreError) -> Store {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: path) {
            let contents = (try? fileManager.contentsOfDirectory(atPath: path)) ?? ["(a file)"]
            guard contents.isEmpty else { throw StoreError.storeAlreadyExists(path: path) }
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let parent = url.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(url.lastPathComponent).creating-\(UUID().uuidString)")
        do {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw StoreError.fileSystem(path: parent.path, reason: error.localizedDescription)
        }
        defer { try? fileManager.removeItem(at: staging) }
        do {
            let repository = try Repository.createBare(at: staging.path, initialBranch: Fork.main.name)
            let tree = try repository.writeTree([])
            let message = CommitMessage.compose("Create store", trailers: Store.stamp(lamport: 1))
            let signature = Signature(name: options.authorName, email: options.authorEmail)
            let commit = try repository.createCommit(tree: tree, parents: [], message: message, signature: signature)
            try repository.updateReference(
                Fork.main.referenceName, to: commit, expecting: nil, logMessage: "forkstore: create")
        } catch {
            throw StoreError(error, during: "creating the store")
        }
        do {
            let manifest = staging.appendingPathComponent(Manifest.fileName)
            try Data(Manifest.current(kind).encoded()).write(to: manifest, options: .atomic)
        } catch {
            throw StoreError.fileSystem(path: path, reason: error.localizedDescription)
        }
        // rename(2) replaces only an empty folder, atomically: a store another process
        // created at the same moment is never overwritten.
        guard rename(staging.path, url.path) == 0 else {
            let code = errno
            if code == ENOTEMPTY || code == EEXIST || code == ENOTDIR {
                throw StoreError.storeAlreadyExists(path: path)
            }
            throw StoreError.fileSystem(path: path, reason: String(cString: strerror(code)))
        }
        return try open(at: path, options: options, kind: kind)
    }

    /// The trailers every commit carries, plus `extra`.
    static func stamp(lamport: Int, _ extra: [Trailer] = []) -> [Trailer] {
        [
            Trailer(key: TrailerKey.modelVersion, value: String(Value.modelVersion)),
            Trailer(key: TrailerKey.formatVersion, value: String(FormatVersion.current)),
            Trailer(key: TrailerKey.lamport, value: String(lamport)),
        ] + extra
    }
}

extension StoreError {
    /// Wraps a libgit2 failure: a missing object becomes ``missingObject(id:reason:)``.
    init(_ error: GitError, during operation: String, object: String? = nil) {
        if error.code == .notFound, let object {
            self = .missingObject(id: object, reason: error.message)
        } else {
            self = .repository(operation: operation, reason: error.message)
        }
    }
}

/// Runs libgit2 work, turning its failure into a ``StoreError`` that names the operation.
/// With `object`, a missing object becomes ``StoreError/missingObject(id:reason:)``.
func git<Result>(
    _ operation: @autoclosure () -> String, object: String? = nil, _ body: () throws(GitError) -> Result
) throws(StoreError) -> Result {
    do {
        return try body()
    } catch {
        throw StoreError(error, during: operation(), object: object)
    }
}

extension Store {
    /// Runs `body` with the repository, holding the store's lock and the cross-process writer
    /// lock: for the exchange, which fetches into the same repository.
    package func withExclusiveRepository<Result>(_ body: (Repository) throws -> Result) throws -> Result {
        try repository.withRepository { repository in
            try writerLock.withLock { try body(repository) }
        }
    }

    /// Reads a commit inside the lock, for the exchange.
    package static func readCommit(_ id: ObjectID, in repository: Repository) throws -> Commit {
        try commit(id, in: repository)
    }

    /// Throws unless this build can read every commit reachable from `head` but not from
    /// `base`, for the exchange's halt check.
    package static func checkIncoming(_ head: ObjectID, notIn base: ObjectID?, in repository: Repository) throws {
        try checkStamps(ofCommitsIn: head, notIn: base, repository: repository)
    }

    /// Publishes a change made by the exchange (it moves `cloud` directly).
    package func publish(_ change: StoreChange) {
        changeHub.publish(change)
    }
}
