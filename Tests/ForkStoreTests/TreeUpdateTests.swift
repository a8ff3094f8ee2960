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

    /// A batch handle keeps its trees parsed between updates and writes them itself; it must
    /// write exactly the trees libgit2 writes, and know the blob differences a tree walk finds.
    /// Names are chosen to collide: a folder sorts as if its name ended in "/", so "a" (folder),
    /// "a.json", "a-b" and "a0" interleave; a blob where a folder is (and the reverse) is left
    /// to libgit2.
    @Test func aBatchHandleWritesTheTreesLibgit2Writes() throws {
        let folder = TemporaryFolder()
        let repository = try Repository.createBare(at: folder.child("r.git"), initialBranch: "main")
        let blobs = try (0..<5).map { try repository.writeBlob(Array("blob \($0)".utf8)) }
        let folders = ["a", "a0", "records", "é"], files = ["a.json", "a-b", "a0.json", "Z", "é.json", "b"]
        var seed: UInt64 = 20261124
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let empty = try repository.writeTree([])
        var compared = 0
        try repository.withObjectsInOnePack { batch -> (Void, commits: [ObjectID]) in
            var expected = empty, actual = empty
            for round in 0..<60 {
                var changes: [TreeChange] = []
                for _ in 0..<(1 + next(6)) {
                    let path = ((0..<next(3)).map { _ in folders[next(folders.count)] }
                        + [next(20) == 0 ? "a" : files[next(files.count)]]).joined(separator: "/")
                    changes.append(next(4) == 0 ? .remove(path: path) : .upsert(path: path, blob: blobs[next(blobs.count)]))
                }
                let reference = try? repository.updatedTree(from: expected, applying: changes)
                guard let reference else { continue }  // libgit2 refuses it (a file inside a file): skip
                let made = try batch.updatedTree(from: actual, applying: changes)
                #expect(made == reference, "round \(round): \(changes)")
                guard made == reference else { break }
                let walked = try repository.differences(from: expected, to: reference)
                let known = try batch.differences(from: actual, to: made)
                #expect(Set(walked.map { "\($0.path) \($0.old?.hex ?? "-") \($0.new?.hex ?? "-")" })
                    == Set(known.map { "\($0.path) \($0.old?.hex ?? "-") \($0.new?.hex ?? "-")" }), "round \(round): \(changes)")
                (expected, actual) = (reference, made)
                compared += 1
            }
            return ((), commits: [])
        }
        #expect(compared >= 30, "only \(compared) rounds libgit2 accepted")
    }
}
