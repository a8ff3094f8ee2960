/// A keyed collection of records in a bare git repository: one blob per record in a sharded
/// tree (see <doc:OnDiskFormat>), so changing k of N records writes O(k log N) objects and reading
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
/// Forks, history, merging, the change stream and the concurrency rules are those of
/// ``Store``: both come from ``VersionedStore``. Merges go record by record.
public final class RecordStore<Record: Resource & Identifiable>: VersionedStore where Record.ID == String {
    /// The store's opaque handle on its engine, for ``VersionedStore``; it has no public members.
    public let handle: StoreHandle
    let layout: RecordLayout<Record>

    private init(engine: StoreEngine, layout: RecordLayout<Record>) {
        self.handle = StoreHandle(engine)
        self.layout = layout
    }

    /// Creates a record store at `path` (which must not exist, or be an empty folder).
    public static func create(at path: String, options: StoreOptions = StoreOptions()) throws -> RecordStore {
        let layout = try RecordLayout<Record>()
        return RecordStore(engine: try StoreEngine.create(at: path, options: options, layout: layout), layout: layout)
    }

    /// A new record store that lives only as long as this object, for tests and previews: see
    /// ``Store/inMemory(options:)-1joic``.
    public static func inMemory(options: StoreOptions = StoreOptions()) throws -> RecordStore {
        let layout = try RecordLayout<Record>()
        return RecordStore(engine: try StoreEngine.temporary(options: options, layout: layout), layout: layout)
    }

    /// Opens the record store at `path`.
    ///
    /// - Throws: as ``Store/open(at:options:)-35i58``; a store holding a single value is
    ///   ``StoreError/notAStore(path:reason:)``.
    public static func open(at path: String, options: StoreOptions = StoreOptions()) throws -> RecordStore {
        let layout = try RecordLayout<Record>()
        return RecordStore(engine: try StoreEngine.open(at: path, options: options, layout: layout), layout: layout)
    }
}
