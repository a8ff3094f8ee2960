import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("What reading a packed object costs is known from its chain's headers")
struct DeltaChainsTests {
    /// A bare repository whose one pack holds twelve versions of a 40 KB blob, git's deltas
    /// between them; returns it and the blobs' ids.
    private func packedVersions(in folder: TemporaryFolder) throws -> (repository: String, ids: [ObjectID]) {
        let repository = folder.child("r.git")
        try git("init", "-q", "--bare", repository)
        var random = SplitMix(state: 7)
        var blob = random.text(40_000)
        var ids: [ObjectID] = []
        for round in 0..<12 {
            blob.replaceSubrange(round * 100..<round * 100 + 50, with: random.text(50))
            let file = folder.child("blob")
            try Data(blob).write(to: URL(fileURLWithPath: file))
            let hex = try git("--git-dir", repository, "hash-object", "-w", file).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            ids.append(try #require(ObjectID(hex: hex)))
        }
        try git(["--git-dir", repository, "pack-objects", "-q", repository + "/objects/pack/pack"], input: ids.map { $0.hex + "\n" }.joined())
        #expect(try git("verify-pack", "-v", try #require(PackFile.packs(in: repository + "/objects/pack").first).base + ".idx").stdout.contains("chain length"))
        return (repository, ids)
    }

    @Test func gitsChainsOfRecordsPass() throws {
        let folder = TemporaryFolder("delta-chains")
        let (repository, ids) = try packedVersions(in: folder)
        let chains = try DeltaChains(packFolder: repository + "/objects/pack")
        for id in ids {
            try chains.check(id, limit: 1_000_000, object: id.hex) { _ in Issue.record("no base lies outside the pack") }
        }
    }

    @Test func aChainThroughAnObjectOverTheLimitIsRefused() throws {
        let folder = TemporaryFolder("delta-chains")
        let (repository, ids) = try packedVersions(in: folder)
        let chains = try DeltaChains(packFolder: repository + "/objects/pack")
        // Every version is 40 KB, so any of them, or any base it is rebuilt from, is over 30 KB.
        for id in ids {
            #expect(throws: LimitExceeded.self) { try chains.check(id, limit: 30_000, object: id.hex) { _ in } }
        }
    }
}
