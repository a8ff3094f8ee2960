import ForkStoreGit

/// A keyed collection of records in a bare git repository: one blob per record in a sharded
/// tree (see ``RecordPath``), so changing k of N records writes O(k log N) objects and reading
/// one record decodes only that record.
///
/// ```swift
/// struct Film: Resource, Identifiable {
///     static let modelVersion = 1
///     var id: String
///     var title: String
///     var year: Int
/// }
/// let films = try RecordStore<Film>.create(at: path)
/// try films.save(Film(id: "tt0111161", title: "The Shawshank Redemption", year: 1994))
/// let film = try films.record("tt0111161")
/// try films.transaction { changes in
///     changes.save(Film(id: "tt0068646", title: "The Godfather", year: 1972))
///     changes.delete("tt0111161")
/// }
/// ```
///
/// Forks, history, the change stream and the concurrency rules are those of ``Store``.
public final class RecordStore<Record: Resource & Identifiable>: Sendable where Record.ID == String {
    /// The store machinery underneath (forks, locks, history, merges), for the exchange.
    package let engine: Store<Record>

    private init(engine: Store<Record>) {
        self.engine = engine
    }

    /// Creates a record store at `path` (which must not exist, or be an empty folder).
    public static func create(at path: String, options: StoreOptions = StoreOptions()) throws -> RecordStore {
        RecordStore(engine: try Store<Record>.create(at: path, options: options, kind: .records))
    }

    /// Opens the record store at `path`.
    public static func open(at path: String, options: StoreOptions = StoreOptions()) throws -> RecordStore {
        RecordStore(engine: try Store<Record>.open(at: path, options: options, kind: .records))
    }

    /// The store's folder.
    public var path: String { engine.path }
    /// The options the store was opened with.
    public var options: StoreOptions { engine.options }

    // MARK: Forks and history, as in Store

    /// Every fork, sorted by name.
    public func forks() throws -> [Fork] { try engine.forks() }
    /// Creates a fork at a commit, by default at `main`'s head.
    @discardableResult
    public func createFork(_ fork: Fork, at commit: CommitID? = nil) throws -> Commit {
        try engine.createFork(fork, at: commit)
    }
    /// Deletes a fork (`main` cannot be deleted).
    public func deleteFork(_ fork: Fork) throws { try engine.deleteFork(fork) }
    /// The newest commit of a fork.
    public func head(of fork: Fork = .main) throws -> Commit { try engine.head(of: fork) }
    /// A fork's commits, newest first.
    public func history(of fork: Fork = .main, limit: Int? = nil) throws -> [Commit] {
        try engine.history(of: fork, limit: limit)
    }
    /// Every change this store object makes.
    public func changes() -> AsyncStream<StoreChange> { engine.changes() }
}

/// What a record blob holds: the exact id beside the record (so the file name never needs
/// decoding) and the model version that wrote it (a commit's tree keeps records written by
/// older versions, so the commit's stamp does not say how each record is shaped).
struct RecordEnvelope<Record: Resource>: Codable {
    var id: String
    var modelVersion: Int?
    var record: Record

    init(id: String, record: Record) {
        self.id = id
        self.modelVersion = Record.modelVersion
        self.record = record
    }
}
