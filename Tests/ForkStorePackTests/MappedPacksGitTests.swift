import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Testing

/// Objects read by id from packs mapped whole (``MappedPacks``, how a listing reads) are the
/// bytes git wrote, through git's deltas of both kinds.
@Suite("Objects read by id from mapped packs")
struct MappedPacksGitTests {
    /// A bare repository with versions of three blobs of about 8 KB: the first half of them packed by
    /// `git pack-objects` with reference deltas, the rest with offset deltas, and one more
    /// left loose. Returns it, every packed blob by id, and the loose one's id.
    private func repository(in folder: TemporaryFolder) async throws -> (path: String, packed: [ObjectID: [UInt8]], loose: ObjectID) {
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", repository)
        var random = SplitMix(state: 11)
        var blobs: [ObjectID: [UInt8]] = [:], order: [ObjectID] = []
        var files = (0..<3).map { _ in random.text(8_000) }
        func write(_ text: [UInt8]) async throws -> ObjectID {
            let file = folder.child("blob")
            try Data(text).write(to: URL(fileURLWithPath: file))
            let hex = try await git("--git-dir", repository, "hash-object", "-w", file).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return try #require(ObjectID(hex: hex))
        }
        for round in 0..<10 {
            for file in files.indices {
                // Each version longer than the last: a delta applied to the wrong base is found.
                files[file].insert(contentsOf: random.text(40), at: round * 200)
                let id = try await write(files[file])
                blobs[id] = files[file]
                order.append(id)
            }
        }
        let half = order.count / 2
        for (ids, options) in [(order[..<half], [String]()), (order[half...], ["--delta-base-offset"])] {
            let pack = try await git(
                ["--git-dir", repository, "pack-objects", "-q"] + options + [repository + "/objects/pack/pack"], input: ids.map { $0.hex + "\n" }.joined())
            #expect(pack.status == 0, "\(pack.stderr)")
        }
        try await git("--git-dir", repository, "prune-packed")
        let loose = try await write(random.text(100))
        var chains = ""
        for pack in PackFile.packs(in: repository + "/objects/pack") { chains += try await git("verify-pack", "-v", pack.base + ".idx").stdout }
        #expect(chains.contains("chain length = 1"))
        return (repository, blobs, loose)
    }

    @Test func everyPackedObjectIsTheBytesGitWrote() async throws {
        let folder = TemporaryFolder("mapped-packs")
        let (repository, blobs, loose) = try await repository(in: folder)
        let packs = MappedPacks(PackFile.packs(in: repository + "/objects/pack"))
        let inflater = try Inflater()
        for (id, bytes) in blobs {
            let object = try packs.object(id, maximumSize: 1 << 20, inflater: inflater)
            #expect(object?.kind == .blob)
            #expect(object?.bytes == bytes, "\(id.hex)")
        }
        // Not in a pack: the caller reads it elsewhere.
        #expect(try packs.object(loose, maximumSize: 1 << 20, inflater: inflater) == nil)
        #expect(try await git("--git-dir", repository, "cat-file", "-t", loose.hex).stdout.hasPrefix("blob"))
    }

    /// A bare repository whose pack holds a chain of 300 deltas, each on the one before and
    /// each adding a line first; returns it and every version, shallowest first.
    private func deepChain(in folder: TemporaryFolder) async throws -> (path: String, versions: [[UInt8]]) {
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", repository)
        var version = Array("0\n".utf8)
        var versions = [version], deltas: [[UInt8]] = []
        for number in 1...300 {
            // The version before whole (offset 0, its size in two bytes), then a new line first.
            let line = Array("\(number)\n".utf8)
            let copy: [UInt8] = [0x80 | 0x10 | 0x20, UInt8(version.count & 0xFF), UInt8(version.count >> 8)]
            deltas.append(Delta.header(base: version.count, result: version.count + line.count) + [UInt8(line.count)] + line + copy)
            version = line + version
            versions.append(version)
        }
        try await onOwnThread { [deltas] in
            try writeDeltaChainPack(base: Array("0\n".utf8), deltas: deltas, into: repository + "/objects/pack", scratch: folder.path)
        }
        return (repository, versions)
    }

    /// The chain read at every depth: the deltas are applied in the chain's order. git reads
    /// the deepest one the same.
    @Test func aDeepChainIsAppliedInItsOrder() async throws {
        let folder = TemporaryFolder("mapped-packs")
        let (repository, versions) = try await deepChain(in: folder)
        let deepest = try #require(versions.last)
        #expect(try await git("--git-dir", repository, "cat-file", "-p", ObjectID.blobHash(of: deepest).hex).stdout == String(decoding: deepest, as: UTF8.self))
        let packs = MappedPacks(PackFile.packs(in: repository + "/objects/pack"))
        let inflater = try Inflater()
        for expected in versions {
            #expect(try packs.object(ObjectID.blobHash(of: expected), maximumSize: 1 << 20, inflater: inflater)?.bytes == expected)
        }
    }

    /// Read through a cache in the chain's order, as a fetch's walk reads the versions of a
    /// tree, each version costs one delta on the one before: the deep versions, whose whole
    /// chains cost more than 64 times the limit to rebuild, are refused without the cache and
    /// read with it, as they were written.
    @Test func throughACacheEachVersionIsOneDeltaOnTheLast() async throws {
        let folder = TemporaryFolder("mapped-packs")
        let (repository, versions) = try await deepChain(in: folder)
        let packs = MappedPacks(PackFile.packs(in: repository + "/objects/pack"))
        let inflater = try Inflater()
        let limit = 2_000
        let deepest = ObjectID.blobHash(of: try #require(versions.last))
        #expect(throws: PackError.self) { try packs.object(deepest, maximumSize: limit, inflater: inflater) }
        var cache = ObjectCache(budget: 16_384)
        for expected in versions {
            #expect(try packs.object(ObjectID.blobHash(of: expected), maximumSize: limit, inflater: inflater, cache: &cache)?.bytes == expected)
        }
    }

    /// The cache keeps what was made last in two halves: filling the recent half moves it to
    /// the older one, so the objects just before are still there; the half before that goes.
    /// Each object costs its bytes and 64 more.
    @Test func theCacheKeepsTheLastHalfOfItsBudgetAndTheOneBefore() {
        var cache = ObjectCache(budget: 4_000)
        func object(_ number: Int, size: Int = 900) -> PackReader.Object { PackReader.Object(kind: .blob, bytes: [UInt8](repeating: UInt8(number), count: size)) }
        for number in 0..<6 { cache[number] = object(number) }
        // 0 and 1 filled a half (2 x 964 bytes of 2,000), 2 and 3 the next, 4 and 5 the last.
        #expect(cache[0] == nil && cache[1] == nil)
        for number in 2..<6 { #expect(cache[number]?.bytes == object(number).bytes) }
        // Set again, an object is not counted twice: the recent half does not fill for it.
        for _ in 0..<10 { cache[5] = object(5) }
        #expect(cache[2] != nil)
        // Larger than half the budget with its 64 bytes: not kept, and nothing goes for it.
        cache[9] = object(9, size: 1_937)
        #expect(cache[9] == nil && cache[2] != nil)
        cache[9] = object(9, size: 1_936)
        #expect(cache[9] != nil && cache[2] == nil && cache[4] != nil)
        var none = ObjectCache(budget: 0)
        none[1] = PackReader.Object(kind: .blob, bytes: [])
        #expect(none[1] == nil)
    }

    /// Packs larger than the budget give their pages back as reads go, and read the same after;
    /// packs within it keep them.
    @Test func pagesAreGivenBackPastTheBudgetAndReadAgain() async throws {
        let folder = TemporaryFolder("mapped-packs")
        let (repository, blobs, _) = try await repository(in: folder)
        let packFiles = PackFile.packs(in: repository + "/objects/pack")
        let inflater = try Inflater()
        let small = MappedPacks(packFiles, residentBudget: 20_000)
        for _ in 0..<2 {
            for (id, bytes) in blobs { #expect(try small.object(id, maximumSize: 1 << 20, inflater: inflater)?.bytes == bytes) }
        }
        #expect(small.releases > 2)
        let large = MappedPacks(packFiles)
        for (id, bytes) in blobs { #expect(try large.object(id, maximumSize: 1 << 20, inflater: inflater)?.bytes == bytes) }
        #expect(large.releases == 0)
    }

    @Test func anObjectOverTheLimitIsRefusedBeforeItIsRead() async throws {
        let folder = TemporaryFolder("mapped-packs")
        let (repository, blobs, _) = try await repository(in: folder)
        let packs = MappedPacks(PackFile.packs(in: repository + "/objects/pack"))
        let inflater = try Inflater()
        for id in blobs.keys {
            #expect(throws: PackError.self) { try packs.object(id, maximumSize: 4_000, inflater: inflater) }
        }
    }
}
