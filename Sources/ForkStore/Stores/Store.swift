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
/// Forks, history and merging come from ``VersionedStore``, shared with ``RecordStore``.
///
/// A store is `Sendable`: use it from any task. Every libgit2 call runs behind the store's
/// lock, one at a time; writes from several processes are serialized with an OS file lock and
/// land with compare-and-swap reference updates, so no acknowledged commit is ever lost.
/// The synchronous calls block the calling thread while they touch the disk, like a database
/// connection; from async code, the `async` variants (`await store.save(…)`) run that work
/// off the caller's actor.
public final class Store<Value: Resource>: VersionedStore {
    /// The store's opaque handle on its engine, for ``VersionedStore``; it has no public members.
    public let handle: StoreHandle
    let layout: ValueLayout<Value>

    private init(engine: StoreEngine, layout: ValueLayout<Value>) {
        self.handle = StoreHandle(engine)
        self.layout = layout
    }

    /// Opens the store at `path`.
    ///
    /// - Throws: ``StoreError/storeNotFound(path:)`` when nothing is there,
    ///   ``StoreError/notAStore(path:reason:)`` for a folder that is not a store (or holds a
    ///   record collection), ``StoreError/newerFormatVersion(found:supported:)`` for a store of
    ///   a newer format, and ``StoreError/invalidMigrationPlan(reason:)`` when `Value`'s
    ///   migration plan does not reach its model version.
    public static func open(at path: String, options: StoreOptions = StoreOptions()) throws -> Store {
        let layout = try ValueLayout<Value>()
        return Store(engine: try StoreEngine.open(at: path, options: options, layout: layout), layout: layout)
    }

    /// Creates a new store at `path`: a bare repository whose `main` fork holds one empty
    /// commit. The path must not exist, or be an empty folder.
    ///
    /// The store is built in a temporary folder beside `path` and renamed into place, so a
    /// crash never leaves a half-made store behind.
    public static func create(at path: String, options: StoreOptions = StoreOptions()) throws -> Store {
        let layout = try ValueLayout<Value>()
        return Store(engine: try StoreEngine.create(at: path, options: options, layout: layout), layout: layout)
    }

    /// A new store that lives only as long as this object, for tests and previews (Forked's
    /// `QuickFork`): the same API, kept in memory (`/dev/shm`) where the system offers it,
    /// otherwise in the temporary directory, and removed when the store is released.
    public static func inMemory(options: StoreOptions = StoreOptions()) throws -> Store {
        let layout = try ValueLayout<Value>()
        return Store(engine: try StoreEngine.temporary(options: options, layout: layout), layout: layout)
    }
}
