import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("What reading a packed object costs is known from its chain's headers")
struct DeltaChainsTests {
    /// A bare repository whose one pack holds twelve versions of a 40 KB blob, git's deltas
    /// between them; returns it and the blobs' ids.
    private func packedVersions(in folder: TemporaryFolder) async throws -> (repository: String, ids: [ObjectID]) {
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", repository)
        var random = SplitMix(state: 7)
        var blob = random.text(40_000)
        var ids: [ObjectID] = []
        for round in 0..<12 {
            blob.replaceSubrange(round * 100..<round * 100 + 50, with: random.text(50))
            let file = folder.child("blob")
            try Data(blob).write(to: URL(fileURLWithPath: file))
            let hex = try await git("--git-dir", repository, "hash-object", "-w", file).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            ids.append(try #require(ObjectID(hex: hex)))
        }
        try await git(["--git-dir", repository, "pack-objects", "-q", repository + "/objects/pack/pack"], input: ids.map { $0.hex + "\n" }.joined())
        #expect(try await git("verify-pack", "-v", try #require(PackFile.packs(in: repository + "/objects/pack").first).base + ".idx").stdout.contains("chain length"))
        return (repository, ids)
    }

    @Test func gitsChainsOfRecordsPass() async throws {
        let folder = TemporaryFolder("delta-chains")
        let (repository, ids) = try await packedVersions(in: folder)
        let chains = try DeltaChains(packFolder: repository + "/objects/pack")
        for id in ids {
            try chains.check(id, limit: 1_000_000, object: id.hex) { _ in Issue.record("no base lies outside the pack") }
        }
    }

    @Test func aChainThroughAnObjectOverTheLimitIsRefused() async throws {
        let folder = TemporaryFolder("delta-chains")
        let (repository, ids) = try await packedVersions(in: folder)
        let chains = try DeltaChains(packFolder: repository + "/objects/pack")
        // Every version is 40 KB, so any of them, or any base it is rebuilt from, is over 30 KB.
        for id in ids {
            #expect(throws: LimitExceeded.self) { try chains.check(id, limit: 30_000, object: id.hex) { _ in } }
        }
    }

    /// Checking every object of a deep chain (each version of a record a delta on the one
    /// before, as `git repack --depth` makes them) reads each entry once: the part of the chain
    /// below an entry already checked is not read again. Read again, 4,000 versions cost
    /// 8 million entry reads.
    @Test func everyObjectOfADeepChainIsCheckedInTimeLinearInItsDepth() async throws {
        let folder = TemporaryFolder("delta-chains")
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", repository)
        let depth = 4_000
        var version = Array("0\n".utf8)
        var ids = [ObjectID.blobHash(of: version)]
        var deltas: [[UInt8]] = []
        for number in 1...depth {
            // Copy the version before whole (offset 0; its size in two bytes), then add a line.
            let line = Array("\(number)\n".utf8)
            let copy: [UInt8] = [0x80 | 0x10 | 0x20, UInt8(version.count & 0xFF), UInt8(version.count >> 8)]
            deltas.append(Delta.header(base: version.count, result: version.count + line.count) + copy + [UInt8(line.count)] + line)
            version += line
            ids.append(ObjectID.blobHash(of: version))
        }
        try await onOwnThread { [deltas] in
            try writeDeltaChainPack(base: Array("0\n".utf8), deltas: deltas, into: repository + "/objects/pack", scratch: folder.path)
        }
        #expect(try await git("--git-dir", repository, "cat-file", "-p", ids[depth].hex).stdout.hasSuffix("\n\(depth)\n"))

        let chains = try DeltaChains(packFolder: repository + "/objects/pack")
        let started = ContinuousClock.now
        for id in ids.reversed() {
            try chains.check(id, limit: 1_000_000, object: id.hex) { _ in Issue.record("no base lies outside the pack") }
        }
        let elapsed = ContinuousClock.now - started
        print("checked the \(ids.count) objects of a \(depth)-deep chain in \(elapsed)")
        #expect(elapsed < .seconds(2))
        // What a chain costs still counts whole, its part checked before included: with a
        // 60 KB limit every version passes alone, and the chains of the first versions pass,
        // but the newest ones make more than 64 times that along their chains.
        let refused = stride(from: 0, through: depth, by: 100).map { number in
            (try? chains.check(ids[number], limit: 60_000, object: ids[number].hex) { _ in }) == nil
        }
        let firstRefused = try #require(refused.firstIndex(of: true))
        #expect(firstRefused > 1 && refused[firstRefused...].allSatisfy { $0 })
    }
}
