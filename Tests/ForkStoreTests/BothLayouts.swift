import ForkStore
import ForkStoreTestSupport

/// A record per item, for running one test body over both layouts.
struct Item: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
}

/// A store of items, whatever its layout: the fork, history and merge tests run one body over
/// both (as GRDB runs its tests over a queue and a pool).
protocol ItemStore: VersionedStore {
    @discardableResult func add(_ item: String, to fork: Fork) throws -> Commit
    @discardableResult func drop(_ item: String, from fork: Fork) throws -> Commit
    func items(_ fork: Fork) throws -> Set<String>
}

extension Store: ItemStore where Value == Tally {
    func drop(_ item: String, from fork: Fork) throws -> Commit {
        try update(fork, message: "Drop \(item)") { $0?.items.remove(item) }
    }
}

extension RecordStore: ItemStore where Record == Item {
    func add(_ item: String, to fork: Fork) throws -> Commit {
        try save(Item(id: item), to: fork, message: "Add \(item)")
    }

    func drop(_ item: String, from fork: Fork) throws -> Commit {
        try delete(item, from: fork, message: "Drop \(item)")
    }

    func items(_ fork: Fork) throws -> Set<String> {
        Set(try records(in: fork).map(\.id))
    }
}

extension ItemStore {
    @discardableResult
    func add(_ item: String) throws -> Commit { try add(item, to: .main) }
    func items() throws -> Set<String> { try items(.main) }
}

/// The two content layouts, as test arguments.
enum Layout: String, CaseIterable, Sendable, CustomStringConvertible {
    case value
    case records

    var description: String { rawValue }

    /// A new store of this layout at `path`.
    func create(at path: String) throws -> any ItemStore {
        switch self {
        case .value: try Store<Tally>.create(at: path)
        case .records: try RecordStore<Item>.create(at: path)
        }
    }

    /// A new store of this layout in a temporary folder; keep `folder` alive as long as the store.
    func makeStore() throws -> (folder: TemporaryFolder, store: any ItemStore) {
        let folder = TemporaryFolder()
        return (folder, try create(at: folder.child("store")))
    }
}
