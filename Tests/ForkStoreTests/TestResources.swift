import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// A resource that is not Mergeable: merges fall back to last-writer-wins.
struct Doc: Resource, Equatable {
    static let modelVersion = 1
    var title: String
    var count: Int = 0
}

/// The same stored shape one model version later.
struct DocV2: Resource, Equatable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([.lightweight(from: 1, to: 2)])
    var title: String
    var count: Int = 0
}

/// A fresh store in a temporary folder; keep `folder` alive as long as the store.
func makeStore<Value: Resource>(_ type: Value.Type = Tally.self) throws -> (TemporaryFolder, Store<Value>) {
    let folder = TemporaryFolder()
    let store = try Store<Value>.create(at: folder.child("store"))
    return (folder, store)
}

/// Asserts that the git command line reads the store as a clean repository.
func expectFsckClean(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let result = try await git("--git-dir", path, "fsck", "--strict", "--no-dangling")
    #expect(result.status == 0, "git fsck: \(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
}
