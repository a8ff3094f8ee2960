import ForkStoreGit
import ForkStoreTestSupport
import Testing

@Suite("Nested tree updates")
struct TreeUpdateTests {
    @Test func upsertsAndRemovalsRewriteOnlyTheirPaths() throws {
        let folder = TemporaryFolder()
        let repository = try Repository.createBare(at: folder.child("r.git"), initialBranch: "main")
        let empty = try repository.writeTree([])
        let a = try repository.writeBlob(Array("a".utf8)), b = try repository.writeBlob(Array("b".utf8))
        let first = try repository.updatedTree(from: empty, applying: [
            .upsert(path: "records/ab/cd/one.json", blob: a),
            .upsert(path: "records/ab/ef/two.json", blob: b),
            .upsert(path: "records/12/34/three.json", blob: a),
        ])
        #expect(try repository.entry(atPath: "records/ab/cd/one.json", inTree: first)?.id == a)
        #expect(try repository.entry(atPath: "records/ab/ef/two.json", inTree: first)?.id == b)
        let second = try repository.updatedTree(from: first, applying: [
            .remove(path: "records/12/34/three.json"),
            .upsert(path: "records/ab/cd/one.json", blob: b),
        ])
        #expect(try repository.entry(atPath: "records/ab/cd/one.json", inTree: second)?.id == b)
        // The emptied folders are gone, and the untouched subtree is shared, not rewritten.
        #expect(try repository.entry(atPath: "records/12", inTree: second) == nil)
        #expect(try repository.entry(atPath: "records/ab/ef", inTree: second)?.id
            == repository.entry(atPath: "records/ab/ef", inTree: first)?.id)
        #expect(try repository.updatedTree(from: second, applying: []) == second)
    }
}
