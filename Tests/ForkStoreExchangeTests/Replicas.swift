import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// The same shape as `Tally`, written by a newer build that knows model version 999.
struct FutureTally: Resource, Mergeable, Equatable {
    static let modelVersion = 999
    static let migrationPlan = MigrationPlan([.lightweight(from: 1, to: 999)])
    var items: [String]

    func merged(with subordinate: FutureTally, ancestor: FutureTally) throws -> FutureTally {
        let tally = try Tally(Set(items)).merged(with: Tally(Set(subordinate.items)), ancestor: Tally(Set(ancestor.items)))
        return FutureTally(items: tally.items.sorted())
    }
}

/// A folder with a bare remote and any number of replica stores.
final class SyncLab: Sendable {
    let folder = TemporaryFolder("forkstore-sync")
    var remotePath: String { folder.child("remote.git") }

    init(createRemote: Bool = true) async throws {
        if createRemote {
            let created = try await git("init", "--bare", "-q", "-b", "main", remotePath)
            #expect(created.status == 0)
        }
    }

    func replica(_ name: String, url: String? = nil, options: ExchangeOptions = ExchangeOptions()) throws -> (Store<Tally>, Exchange) {
        try replica(name, remote: Remote(url ?? remotePath), options: options)
    }

    func replica(_ name: String, remote: Remote, options: ExchangeOptions = ExchangeOptions()) throws -> (Store<Tally>, Exchange) {
        let store = try Store<Tally>.create(at: folder.child(name))
        return (store, Exchange(store: store, remote: remote, options: options))
    }

    /// A record collection in the lab syncing with its remote.
    func recordReplica<Record>(
        _ name: String, options: StoreOptions = StoreOptions()
    ) throws -> (RecordStore<Record>, Exchange) where Record: Resource & Identifiable, Record.ID == String {
        let store = try RecordStore<Record>.create(at: folder.child(name), options: options)
        return (store, Exchange(records: store, remote: try Remote(remotePath)))
    }

    /// Two replicas of `remote` each add an item and sync in turn; both, and the remote, must
    /// end with both items.
    func expectTwoReplicasConverge(through remote: Remote, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (one, oneSync) = try replica("one", remote: remote)
        let (two, twoSync) = try replica("two", remote: remote)
        try one.add("one")
        try two.add("two")
        try await oneSync.sync()
        try await twoSync.sync()
        try await oneSync.sync()
        #expect(try one.items() == ["one", "two"], sourceLocation: sourceLocation)
        #expect(try two.items() == ["one", "two"], sourceLocation: sourceLocation)
        await #expect(try remoteItems() == ["one", "two"], sourceLocation: sourceLocation)
    }

    /// The items on the remote's main, read with the git CLI.
    func remoteItems() async throws -> Set<String> {
        let shown = try await git("--git-dir", remotePath, "show", "main:value.json")
        guard shown.status == 0 else { return [] }
        return try JSONDecoder().decode(Tally.self, from: Data(shown.stdout.utf8)).items
    }
}

/// Runs one sync that must fail with an error of this code; returns the error for further checks.
@discardableResult
func expectSync(
    _ exchange: Exchange, failsWith code: ExchangeError.Code, sourceLocation: SourceLocation = #_sourceLocation
) async -> ExchangeError? {
    do {
        try await exchange.sync()
        Issue.record("the sync succeeded; expected \(code)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}
