import ForkStorePack
import ForkStoreTestSupport
import Foundation
import ForkStoreLocks
import Testing

/// ``PackReader/forEachObject(of:_:)`` over packs git made: every object git lists, of its kind
/// and size, and nothing else, whatever git's delta settings.
struct PackReaderGitTests {
    /// Every object, then the objects of each kind alone: read for one kind, a pack gives
    /// every object of that kind and no other, whatever the kind of the entries its deltas
    /// are made from.
    @Test(arguments: 0..<4)
    func everyObjectOfAPackGitMadeIsReadAsGitListsIt(seed: Int) async throws {
        let (folder, pack, repository, settings) = try await packGitMade(seed: seed)
        defer { withExtendedLifetime(folder) {} }
        let listed = try await git("--git-dir", repository, "cat-file", "--batch-all-objects", "--batch-check").stdout
            .split(separator: "\n").map(String.init)
        let read = try await onOwnThread { try objects(in: pack, of: nil) }
        #expect(read.sorted() == listed, "seed \(seed), \(settings)")
        for kind in [ObjectKind.blob, .tree, .commit] {
            let read = try await onOwnThread { try objects(in: pack, of: kind) }
            let expected = listed.filter { $0.split(separator: " ")[1] == kind.name }
            #expect(!expected.isEmpty && read.sorted() == expected, "seed \(seed), \(kind.name), \(settings)")
        }
    }

    /// `git repack` of 20 commits of random record files, with offset or reference deltas
    /// and a random depth, as the seed says; the repository lives as long as its folder.
    private func packGitMade(seed: Int) async throws -> (TemporaryFolder, pack: PackFile, repository: String, settings: String) {
        var random = SplitMix(state: UInt64(seed) + 100)
        let folder = TemporaryFolder()
        let repository = folder.child("repository.git")
        #expect(try await git("init", "-q", "--bare", repository).status == 0)
        var script = ""
        var bodies: [Int: String] = [:]  // a file's last version, which a new one may extend: blob deltas
        for commit in 0..<20 {
            script += "commit refs/heads/main\ncommitter Test <test@localhost> \(1_700_000_000 + commit) +0000\ndata 7\nchange\n"
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let file = Int.random(in: 0..<16, using: &random)
                var body = String(decoding: random.text(Int.random(in: 10...3_000, using: &random)), as: UTF8.self)
                if let last = bodies[file], Bool.random(using: &random) { body = last + body.prefix(40) }
                bodies[file] = body
                script += "M 100644 inline records/\(file)/r.json\ndata \(body.utf8.count)\n\(body)\n"
            }
        }
        #expect(try await git("--git-dir", repository, "fast-import", "--quiet", input: script).status == 0)
        let offsets = Bool.random(using: &random) ? "true" : "false"
        let depth = Int.random(in: 1...60, using: &random)
        #expect(try await git("-c", "repack.useDeltaBaseOffset=\(offsets)", "--git-dir", repository, "repack", "-adq", "--depth=\(depth)").status == 0)
        let pack = try #require(PackFile.packs(in: repository + "/objects/pack").first)
        return (folder, pack, repository, "depth \(depth), offsets \(offsets)")
    }

    /// What ``PackReader/forEachObject(of:_:)`` gives, one line each as git's `--batch-check`
    /// writes it.
    private func objects(in pack: PackFile, of kind: ObjectKind?) throws -> [String] {
        let read = Locked<[String]>([])
        try PackReader(pack: pack.base + ".pack", index: PackIndex(path: pack.base + ".idx")).forEachObject(of: kind) { id, object in
            read.withLock { $0.append("\(id.hex) \(object.kind.name) \(object.bytes.count)") }
        }
        return read.withLock { $0 }
    }
}
