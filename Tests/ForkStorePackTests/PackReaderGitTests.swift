import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Synchronization
import Testing

/// ``PackReader/forEachObject(_:)`` over packs git made: every object git lists, of its kind
/// and size, and nothing else, whatever git's delta settings.
struct PackReaderGitTests {
    @Test(arguments: 0..<4)
    func everyObjectOfAPackGitMadeIsReadAsGitListsIt(seed: Int) async throws {
        var random = SplitMix(state: UInt64(seed) + 100)
        let folder = TemporaryFolder()
        let repository = folder.child("repository.git")
        #expect(try await git("init", "-q", "--bare", repository).status == 0)
        var script = ""
        for commit in 0..<20 {
            script += "commit refs/heads/main\ncommitter Test <test@localhost> \(1_700_000_000 + commit) +0000\ndata 7\nchange\n"
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let body = String(decoding: random.text(Int.random(in: 10...3_000, using: &random)), as: UTF8.self)
                script += "M 100644 inline records/\(Int.random(in: 0..<16, using: &random))/r.json\ndata \(body.utf8.count)\n\(body)\n"
            }
        }
        #expect(try await git("--git-dir", repository, "fast-import", "--quiet", input: script).status == 0)
        let offsets = Bool.random(using: &random) ? "true" : "false"
        let depth = Int.random(in: 1...60, using: &random)
        #expect(try await git("-c", "repack.useDeltaBaseOffset=\(offsets)", "--git-dir", repository, "repack", "-adq", "--depth=\(depth)").status == 0)
        let pack = try #require(PackFile.packs(in: repository + "/objects/pack").first)

        let read = try await onOwnThread {
            let read = Mutex<[String]>([])
            try PackReader(pack: pack.base + ".pack", index: PackIndex(path: pack.base + ".idx")).forEachObject { id, object in
                read.withLock { $0.append("\(id.hex) \(object.kind.name) \(object.bytes.count)") }
            }
            return read.withLock { $0 }
        }
        let listed = try await git("--git-dir", repository, "cat-file", "--batch-all-objects", "--batch-check").stdout
        #expect(read.sorted() == listed.split(separator: "\n").map(String.init), "seed \(seed), depth \(depth), offsets \(offsets)")
    }
}
