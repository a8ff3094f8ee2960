import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// The same shape as `Tally`, written by a newer build that knows model version 999.
struct FutureTally: Resource, Mergeable, Equatable {
    static let modelVersion = 999
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

    init(createRemote: Bool = true) throws {
        if createRemote {
            let created = try git("init", "--bare", "-q", "-b", "main", remotePath)
            #expect(created.status == 0)
        }
    }

    func replica(_ name: String, url: String? = nil, options: ExchangeOptions = ExchangeOptions()) throws -> (Store<Tally>, Exchange<Tally>) {
        let store = try Store<Tally>.create(at: folder.child(name))
        return (store, Exchange(store: store, remote: try Remote(url ?? remotePath), options: options))
    }

    /// The items on the remote's main, read with the git CLI.
    func remoteItems() throws -> Set<String> {
        let shown = try git("--git-dir", remotePath, "show", "main:value.json")
        guard shown.status == 0 else { return [] }
        return try JSONDecoder().decode(Tally.self, from: Data(shown.stdout.utf8)).items
    }
}
