import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// The exchange's limits on what one fetch brings are its options: an object larger than
/// `maximumObjectSize`, or a fetch larger than `maximumFetchSize`, fails the sync with
/// `tooLarge` naming the limit; by default the store's own record limit applies.
@Suite("The exchange's limits on what a fetch brings")
struct IncomingLimitTests {
    @Test(arguments: [false, true])
    func theLimitsAreTheExchangesOptions(overGitDaemon: Bool) async throws {
        let lab = try await SyncLab()
        var roomy = StoreOptions()
        roomy.maximumRecordSize = 2_000_000
        let (peer, peerSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("peer", options: roomy)
        try await peer.save(Task2(id: "big", title: String(repeating: "x", count: 300_000)))
        try await peerSync.sync()
        let daemon = overGitDaemon ? try await GitDaemon(basePath: lab.folder.path) : nil
        let url = daemon?.url("remote.git") ?? lab.remotePath
        let store = try await RecordStore<Task2>.create(at: lab.folder.child("replica"), options: roomy)

        let small = Exchange(records: store, remote: try Remote(url), options: ExchangeOptions(maximumObjectSize: 100_000))
        let object = await expectSync(small, failsWith: .tooLarge)
        guard let object, object.limit == .objectSize, object.maximum == 100_000, let size = object.size else {
            throw Failure("\(String(describing: object))")
        }
        #expect(size > 300_000)
        #expect(object.description.contains("ExchangeOptions.maximumObjectSize"))

        let tight = Exchange(records: store, remote: try Remote(url), options: ExchangeOptions(maximumFetchSize: 50_000))
        let fetch = await expectSync(tight, failsWith: .tooLarge)
        guard fetch?.limit == .fetchSize, fetch?.maximum == 50_000 else { throw Failure("\(String(describing: fetch))") }
        #expect(try await store.head(of: .main).parents.isEmpty)

        // The defaults take the store's record limit (2 MB here): the record comes in.
        try await Exchange(records: store, remote: try Remote(url)).sync()
        #expect(try await store.record("big")?.title.count == 300_000)
        #expect(try await git("--git-dir", store.path, "fsck", "--strict").status == 0)
    }
}

extension IncomingLimitTests {
    /// A fetch of more objects than `maximumObjectCount` is refused before they are indexed
    /// (over git://, from the count the pack's header announces) or walked past the count
    /// (from a path remote), whatever their sizes: each object costs memory to take in.
    @Test(arguments: [false, true])
    func aFetchOfMoreObjectsThanTheCountIsRefused(overGitDaemon: Bool) async throws {
        let lab = try await SyncLab()
        let (peer, peerSync): (RecordStore<Task2>, Exchange) = try lab.recordReplica("peer")
        try await peer.save((0..<40).map { Task2(id: "task-\($0)", title: "task \($0)") })
        try await peerSync.sync()
        let objects = try await git("--git-dir", lab.remotePath, "rev-list", "--objects", "--all").stdout.split(separator: "\n").count
        let daemon = overGitDaemon ? try await GitDaemon(basePath: lab.folder.path) : nil
        let url = daemon?.url("remote.git") ?? lab.remotePath
        let store = try await RecordStore<Task2>.create(at: lab.folder.child("replica"))

        let few = Exchange(records: store, remote: try Remote(url), options: ExchangeOptions(maximumObjectCount: objects - 5))
        let refused = await expectSync(few, failsWith: .tooLarge)
        guard let refused, refused.limit == .objectCount, let maximum = refused.maximum, let count = refused.size else {
            throw Failure("\(String(describing: refused))")
        }
        #expect(maximum == objects - 5 && count > objects - 5)
        #expect(refused.description.contains("ExchangeOptions.maximumObjectCount"))
        #expect(try await store.head(of: .main).parents.isEmpty)

        try await Exchange(records: store, remote: try Remote(url), options: ExchangeOptions(maximumObjectCount: objects)).sync()
        #expect(try await store.count() == 40)
        #expect(try await git("--git-dir", store.path, "fsck", "--strict").status == 0)
    }
}

private struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
