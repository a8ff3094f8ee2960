import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Testing

/// The pack format checked against stock git: what we write, git's `index-pack --strict` takes
/// and indexes byte for byte as we do; what git writes, we copy and read back.
@Suite("Packs against stock git")
struct PackWriterGitTests {
    /// Random text blobs, some whole and some as deltas against an earlier entry, and one tree
    /// naming them all.
    static func randomEntries(seed: UInt64) -> (entries: [PackEntry], objects: [ObjectID: [UInt8]]) {
        var random = SplitMix(state: seed)
        var entries: [PackEntry] = [], objects: [ObjectID: [UInt8]] = [:], whole: [(entry: Int, bytes: [UInt8])] = []
        for number in 0..<Int.random(in: 5...60, using: &random) {
            var bytes = random.text(Int.random(in: 0...3_000, using: &random))
            if let base = whole.randomElement(using: &random), Bool.random(using: &random) {
                bytes = Array(base.bytes.prefix(bytes.count)) + Array("edit \(number) ".utf8) + Array(base.bytes.dropFirst(bytes.count))
            }
            let id = bytes.withUnsafeBytes { ObjectID.hash(of: $0, kind: .blob) }
            guard objects.updateValue(bytes, forKey: id) == nil else { continue }
            if let base = whole.last, let delta = base.bytes.withUnsafeBytes({ b in bytes.withUnsafeBytes { Delta.bytes(from: b, to: $0) } }) {
                entries.append(PackEntry(id: id, delta: delta, against: base.entry))
            } else {
                whole.append((entries.count, bytes))
                entries.append(PackEntry(id: id, kind: .blob, payload: bytes))
            }
        }
        var tree: [UInt8] = []
        for (name, id) in objects.keys.map({ ("file-\($0.hex)", $0) }).sorted(by: { $0.0 < $1.0 }) {
            tree += Array("100644 \(name)".utf8) + [0]
            withUnsafeBytes(of: id.bytes) { tree += $0 }
        }
        let treeID = tree.withUnsafeBytes { ObjectID.hash(of: $0, kind: .tree) }
        entries.append(PackEntry(id: treeID, kind: .tree, payload: tree))
        objects[treeID] = tree
        return (entries, objects)
    }

    @Test(arguments: 0..<12)
    func gitIndexPackTakesOurPackAndIndexesItAsWeDo(seed: Int) async throws {
        let folder = TemporaryFolder()
        let packs = folder.child("pack")
        try FileManager.default.createDirectory(atPath: packs, withIntermediateDirectories: true)
        let (entries, objects) = Self.randomEntries(seed: UInt64(seed))
        let writer = try PackWriter(directory: packs, objectCount: entries.count, fsync: false)
        // In random slices, as a batch hands them over.
        var start = 0
        var random = SplitMix(state: UInt64(seed) + 1000)
        while start < entries.count {
            let end = min(entries.count, start + Int.random(in: 1...20, using: &random))
            try writer.append(Array(entries[start..<end]))
            start = end
        }
        let name = try writer.finish()
        let pack = packs + "/pack-" + name + ".pack", ours = packs + "/pack-" + name + ".idx"
        #expect(try PackReader(pack: pack, index: PackIndex(path: ours)).verify() == entries.count, "seed \(seed)")

        let theirs = folder.child("theirs.idx")
        let indexed = try await git("index-pack", "--strict", "-o", theirs, pack)
        #expect(indexed.status == 0, "seed \(seed): \(indexed.stderr)")
        #expect(FileManager.default.contents(atPath: theirs) == FileManager.default.contents(atPath: ours), "seed \(seed): git indexes it otherwise")

        // git reads every object back as it was written.
        let repository = folder.child("repository.git")
        #expect(try await git("init", "-q", "--bare", repository).status == 0)
        for suffix in [".pack", ".idx"] {
            try FileManager.default.copyItem(atPath: packs + "/pack-" + name + suffix, toPath: repository + "/objects/pack/pack-" + name + suffix)
        }
        let blobs = objects.filter { $0.value.allSatisfy { $0 != 0 } }
        let listed = blobs.keys.map(\.hex).joined(separator: "\n") + "\n"
        let printed = try await git("--git-dir", repository, "cat-file", "--batch", input: listed).stdout
        let expected = blobs.keys.map { id in "\(id.hex) blob \(blobs[id]!.count)\n" + String(decoding: blobs[id]!, as: UTF8.self) + "\n" }.joined()
        #expect(printed == expected, "seed \(seed)")
    }

    @Test(arguments: 0..<6)
    func packsGitRepackMadeRollIntoOneThatGitAndWeReadBack(seed: Int) async throws {
        var random = SplitMix(state: UInt64(seed))
        let folder = TemporaryFolder()
        let repository = folder.child("repository.git")
        #expect(try await git("init", "-q", "--bare", repository).status == 0)
        // Rounds of commits, each packed by git with random settings: window, depth, offset or
        // reference deltas; the last round packs everything again, so objects are in two packs.
        let rounds = 4
        for round in 0..<rounds {
            var script = ""
            for commit in 0..<5 {
                script += "commit refs/heads/main\ncommitter Test <test@localhost> \(1_700_000_000 + round * 100 + commit) +0000\ndata 7\nchange\n"
                if round > 0, commit == 0 { script += "from refs/heads/main^0\n" }
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let body = String(decoding: random.text(Int.random(in: 10...2_000, using: &random)), as: UTF8.self)
                    script += "M 100644 inline records/\(Int.random(in: 0..<12, using: &random)).json\ndata \(body.utf8.count)\n\(body)\n"
                }
            }
            #expect(try await git("--git-dir", repository, "fast-import", "--quiet", input: script).status == 0)
            let offsets = Bool.random(using: &random) ? "true" : "false"
            var arguments = ["-c", "repack.useDeltaBaseOffset=\(offsets)", "--git-dir", repository, "repack", "-q"]
            arguments += round == rounds - 1 ? ["-a"] : []
            arguments += ["--window=\(Int.random(in: 0...20, using: &random))", "--depth=\(Int.random(in: 1...60, using: &random))"]
            #expect(try await git(arguments).status == 0, "seed \(seed): \(arguments)")
        }
        let objectsBefore = try await git("--git-dir", repository, "cat-file", "--batch-all-objects", "--batch-check").stdout
        let packs = PackFile.packs(in: repository + "/objects/pack")
        #expect(packs.count >= 2, "seed \(seed)")

        let rolled = try RollUp.rollUp(packs, in: repository + "/objects/pack", fsync: false)

        let after = PackFile.packs(in: repository + "/objects/pack")
        #expect(after.count == 1 && rolled == after.first?.objectCount, "seed \(seed)")
        let pack = try #require(after.first)
        #expect(try await git("verify-pack", pack.base + ".idx").status == 0, "seed \(seed)")
        #expect(try await git("--git-dir", repository, "fsck", "--strict", "--no-dangling").status == 0, "seed \(seed)")
        #expect(try await git("--git-dir", repository, "cat-file", "--batch-all-objects", "--batch-check").stdout == objectsBefore, "seed \(seed)")
    }

    @Test func anIndexWithOffsetsPast2GBReadsAsGitReadsIt() async throws {
        var random = SplitMix(state: 2)
        let offsets = [12, 4_096, (1 << 31) - 1, 1 << 31, (1 << 32) + 7, 5 << 32, (1 << 40) + 3]
        var entries = offsets.map { offset in
            PackIndex.Entry(id: ObjectID(copying: random.bytes(20))!, offset: offset, crc: UInt32.random(in: 0...UInt32.max, using: &random))
        }
        let encoded = try PackIndex.encode(&entries, packChecksum: random.bytes(20))
        let folder = TemporaryFolder()
        let path = folder.child("large.idx")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(encoded)))

        let index = try PackIndex(path: path)
        #expect(try index.entriesInPackOrder() == entries.sorted { $0.offset < $1.offset })
        for entry in entries { #expect(index.offset(of: entry.id) == entry.offset) }
        // git's own reader of an index (it needs no pack): "offset id (crc)" per object.
        let shown = try await run("/bin/sh", ["-c", "git show-index < '\(path)'"]).stdout
        let expected = entries.sorted { $0.id < $1.id }.map { "\($0.offset) \($0.id.hex) (\(String(format: "%08x", $0.crc)))" }
        #expect(shown.split(separator: "\n").map(String.init) == expected)
    }

    /// Found by the pack-index fuzz target: ids out of order (within their fan-out buckets)
    /// made lookups miss objects the index lists; such an index is refused when walked.
    @Test func anIndexWhoseIdsAreOutOfOrderIsRefused() throws {
        var random = SplitMix(state: 3)
        var entries = (0..<3).map { PackIndex.Entry(id: ObjectID(copying: [0x44] + random.bytes(19))!, offset: 12 + $0 * 30, crc: 0) }
        var encoded = try PackIndex.encode(&entries, packChecksum: random.bytes(20))
        let idsStart = PackIndexLayout.idsStart
        let first = Array(encoded[idsStart..<idsStart + 20]), second = Array(encoded[idsStart + 20..<idsStart + 40])
        encoded.replaceSubrange(idsStart..<idsStart + 40, with: second + first)
        let index = try PackIndex(data: Data(encoded), path: "swapped.idx")
        #expect(throws: PackError.self) { try index.entriesInPackOrder() }
        // An id outside the bucket its first byte names.
        encoded.replaceSubrange(idsStart..<idsStart + 40, with: first + second)
        encoded[idsStart + 40] = 0x45
        #expect(throws: PackError.self) { try PackIndex(data: Data(encoded), path: "bucket.idx").entriesInPackOrder() }
    }

    @Test func aDamagedPackOrIndexIsRefusedWhenReadBack() throws {
        let folder = TemporaryFolder()
        let packs = folder.child("pack")
        try FileManager.default.createDirectory(atPath: packs, withIntermediateDirectories: true)
        let (entries, _) = Self.randomEntries(seed: 7)
        let writer = try PackWriter(directory: packs, objectCount: entries.count, fsync: false)
        try writer.append(entries)
        let base = packs + "/pack-" + (try writer.finish())
        let pristine = try Data(contentsOf: URL(fileURLWithPath: base + ".pack"))
        // Every tenth byte in turn, flipped: never read back as it was.
        for position in stride(from: 12, to: pristine.count, by: max(1, pristine.count / 40)) {
            var damaged = pristine
            damaged[position] ^= 0x40
            try damaged.write(to: URL(fileURLWithPath: base + ".pack"))
            #expect(throws: PackError.self, "byte \(position)") { try PackReader(pack: base + ".pack", index: PackIndex(path: base + ".idx")).verify() }
        }
        try pristine.write(to: URL(fileURLWithPath: base + ".pack"))
        let index = try Data(contentsOf: URL(fileURLWithPath: base + ".idx"))
        try index.dropLast(8).write(to: URL(fileURLWithPath: base + ".idx"))
        #expect(throws: PackError.self) { try PackIndex(path: base + ".idx") }
        var flipped = index
        flipped[PackIndexLayout.idsStart + 3] ^= 1
        try flipped.write(to: URL(fileURLWithPath: base + ".idx"))
        #expect(throws: PackError.self) { try PackReader(pack: base + ".pack", index: PackIndex(path: base + ".idx")).verify() }
    }
}

/// Where a version-2 index's ids start: after the magic, the version and the fan-out table.
enum PackIndexLayout {
    static let idsStart = 8 + 256 * 4
}
