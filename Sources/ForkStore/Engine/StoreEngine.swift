import Foundation
import ForkStoreGit
import ForkStoreLocks
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The machinery under every store: the repository session and its lock, the cross-process
/// writer lock, compare-and-swap fork updates, forks, history, stamps, merges and the change
/// stream.
///
/// ``Store`` and ``RecordStore`` are thin façades over one engine each, and share their fork,
/// history and merge API through ``VersionedStore``, whose requirement is the opaque
/// ``StoreHandle`` holding the engine. The engine is ForkStore's own: its other modules (the
/// exchange, the queries) reach it through `package` access, apps only through a store.
package final class StoreEngine: Sendable {
    /// The store's folder: the bare repository.
    let path: String
    let options: StoreOptions
    /// What the store holds and how its trees merge.
    let layout: any ContentLayout
    /// The repository, used by one thread at a time.
    private let session: SerializedSession
    /// Serializes writers across processes; its file holds the note of a ref move in progress.
    let writerLock: FileLock
    /// Held by the process rolling packs up, outside the writer lock.
    let packingLock: FileLock
    /// Set by the packing policy when small packs should be rolled up once the write is done.
    let rollUpDue = Locked(false)
    let changeHub = EventHub<StoreChange>()
    /// Writes since the packing policy last looked at the object database.
    let writesSincePackCheck = Locked(0)
    /// A second handle for network transfers, so a fetch or push never holds the store's lock;
    /// opened on first use and kept.
    let transfers = Locked<Repository?>(nil)
    /// The replica id and the hybrid logical clock that stamp every commit.
    let clock: StoreClock
    /// Companions other modules keep for the store's lifetime (the query module's index),
    /// one per type.
    private let companions = Locked<[ObjectIdentifier: any Sendable]>([:])
    /// The check of the blobs of the last fetch made while they arrived, for the check of the
    /// fetched commits that follows (``integrate(_:archive:resolvingConflicts:trustedOwners:checkProgress:landingProgress:)``).
    let checkedWhileFetching = Locked<IncomingCheckAhead?>(nil)
    /// What hears each sync take a fetch into `main` (``onLanding(_:)``).
    let landingListeners = Locked<[LandingListener]>([])
    /// For an in-memory store, the folder removed when the engine goes away.
    private let temporaryFolder: String?
    /// Where the store keeps asset bytes: `lfs/` in its git directory, laid out as Git LFS
    /// lays out `.git/lfs` (see ``AssetFolder``).
    package let assetFolder: AssetFolder

    var model: StoreModel { layout.model }

    private init(
        path: String, repository: Repository, options: StoreOptions, layout: any ContentLayout, temporaryFolder: String?
    ) throws(StoreError) {
        self.path = path
        self.temporaryFolder = temporaryFolder
        self.assetFolder = AssetFolder(gitDirectory: path)
        self.options = options
        self.layout = layout
        self.writerLock = FileLock(gitDirectory: repository.gitDirectory, fileName: FileLock.writerFileName)
        self.packingLock = FileLock(gitDirectory: repository.gitDirectory, fileName: FileLock.packingFileName)
        self.clock = StoreClock(gitDirectory: repository.gitDirectory, options: options)
        self.session = SerializedSession(StoreSession(repository: repository, model: layout.model, signature: options.commitSignature))
    }

    deinit {
        if let temporaryFolder { try? FileManager.default.removeItem(atPath: temporaryFolder) }
    }

    /// A store in a folder of its own that goes away with the engine: in memory (`/dev/shm`)
    /// where the system has such a folder, otherwise in the temporary directory.
    static func temporary(options: StoreOptions, layout: any ContentLayout) throws(StoreError) -> StoreEngine {
        let memory = "/dev/shm"
        let base = FileManager.default.isWritableFile(atPath: memory) ? memory : NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("forkstore-\(UUID().uuidString)")
        do {
            let path = (folder as NSString).appendingPathComponent("store")
            _ = try create(at: path, options: options, layout: layout)
            let repository = try git("opening an in-memory store") { () throws(GitError) in try Repository.openBare(at: path) }
            return try StoreEngine(path: path, repository: repository, options: options, layout: layout, temporaryFolder: folder)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// Opens the store at `path`, which must hold what `layout` reads.
    static func open(at path: String, options: StoreOptions, layout: any ContentLayout) throws(StoreError) -> StoreEngine {
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
            throw StoreError.notAStore(
                path: path, reason: "it is not a bare git repository (\(error.message))", underlyingCode: error.pack == nil ? error.rawCode : nil)
        }
        let manifest = try Manifest.read(gitDirectory: repository.gitDirectory, storePath: path)
        guard manifest.resource == layout.kind.rawValue else {
            let holds = manifest.resource == Manifest.Kind.records.rawValue
                ? "a record collection (open it with RecordStore)" : "a single value (open it with Store)"
            throw StoreError.notAStore(path: path, reason: "it holds \(holds)")
        }
        if options.fsync {
            do { try Libgit2.enableFsync() } catch { throw StoreError(error, during: "enabling fsync") }
        }
        return try StoreEngine(path: path, repository: repository, options: options, layout: layout, temporaryFolder: nil)
    }

    /// Creates a store at `path` (which must not exist, or be an empty folder): a bare
    /// repository whose `main` fork holds one empty commit, and the manifest naming the layout.
    ///
    /// The store is built in a temporary folder beside `path` and renamed into place, so a
    /// crash never leaves a half-made store behind.
    static func create(at path: String, options: StoreOptions, layout: any ContentLayout) throws(StoreError) -> StoreEngine {
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
            throw StoreError.fileSystem(path: parent.path, error: error)
        }
        defer { try? fileManager.removeItem(at: staging) }
        let repository = try git("creating the store") { () throws(GitError) in
            try Repository.createBare(at: staging.path, initialBranch: Fork.main.name)
        }
        let clock = StoreClock(gitDirectory: repository.gitDirectory, options: options)
        let replica = try clock.replica
        try git("creating the store") { () throws(GitError) in
            let tree = try repository.writeTree([])
            let stamp = layout.model.stamp(lamport: 1, clock: HybridTime(milliseconds: clock.now), replica: replica)
            let message = CommitMessage.compose("Create store", trailers: stamp)
            let commit = try repository.createCommit(
                tree: tree, parents: [], message: message, signature: options.commitSignature, sign: options.commitSigner)
            try repository.updateReference(Fork.main.referenceName, to: commit, expecting: nil, logMessage: "forkstore: create")
        }
        do {
            let manifest = staging.appendingPathComponent(Manifest.fileName)
            try Data(Manifest.current(layout.kind).encoded()).write(to: manifest, options: .atomic)
        } catch {
            throw StoreError.fileSystem(path: path, error: error)
        }
        // rename(2) replaces only an empty folder, atomically: a store another process
        // created at the same moment is never overwritten.
        guard rename(staging.path, url.path) == 0 else {
            let code = errno
            if code == ENOTEMPTY || code == EEXIST || code == ENOTDIR {
                throw StoreError.storeAlreadyExists(path: path)
            }
            throw StoreError.fileSystem(path: path, errno: code)
        }
        return try open(at: path, options: options, layout: layout)
    }

    // MARK: Using the session

    /// Runs `body` with the session, one caller at a time. Not reentrant: never call the engine
    /// from inside `body`.
    func read<Result>(_ body: (StoreSession) throws -> Result) throws -> Result {
        try session.withSession(body)
    }

    /// Runs `body` with the session while also holding the cross-process writer lock, for
    /// anything that moves a reference.
    func write<Result>(_ body: (StoreSession) throws -> Result) throws -> Result {
        let result = try session.withSession { session in
            try writerLock.withLock {
                removeLockFileOfAKilledWriter(gitDirectory: session.repository.gitDirectory)
                return try body(session)
            }
        }
        if rollUpDue.withLock({ due in defer { due = false }; return due }) { rollUpPacks() }
        return result
    }

    /// Throws ``StoreError/readOnlyStore(path:)`` when this process cannot write the store, as
    /// a write would learn from the writer lock: for work that writes before it locks.
    func requireWritable() throws(StoreError) {
        try writerLock.opened()
    }

    /// Publishes a change on the store's change stream.
    func publish(_ change: StoreChange) {
        changeHub.publish(change)
    }
}

extension StoreEngine {
    /// The store's companion of type `Companion`, made by `make` the first time it is asked
    /// for; one per store and type, however many threads ask at once. Keyed by the type itself
    /// (each generic specialization is its own type), so two modules can never collide on a
    /// name, and what comes back is always a `Companion`.
    package func companion<Companion: Sendable>(of type: Companion.Type, make: () throws -> Companion) throws -> Companion {
        let key = ObjectIdentifier(type)
        return try companions.withLock { companions in
            if let existing = companions[key] as? Companion { return existing }
            let made = try make()
            companions[key] = made
            return made
        }
    }
}
