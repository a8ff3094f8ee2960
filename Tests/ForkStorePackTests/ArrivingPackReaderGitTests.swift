import ForkStorePack
import ForkStoreLocks
import ForkStoreTestSupport
import Foundation
import Testing

/// The blobs of a pack read while it arrives (``ArrivingPackReader``) are the bytes git
/// wrote, whichever chunks the pack arrives in; what cannot be read before the pack is
/// indexed is passed over, never read wrong.
@Suite("Blobs read from a pack as it arrives")
struct ArrivingPackReaderGitTests {
    /// A repository of ten commits, each changing three files of about 8 KB (so that git
    /// makes deltas of them), and its every blob by id.
    private func repository(in folder: TemporaryFolder) async throws -> (path: String, blobs: [ObjectID: [UInt8]]) {
        let work = folder.child("work")
        try await git("init", "-q", "-b", "main", work)
        var random = SplitMix(state: 5)
        var files = (0..<3).map { _ in random.text(8_000) }
        var blobs: [ObjectID: [UInt8]] = [:]
        for round in 0..<10 {
            for file in files.indices {
                files[file].insert(contentsOf: random.text(40), at: round * 300)
                try Data(files[file]).write(to: URL(fileURLWithPath: work + "/file\(file)"))
                blobs[ObjectID.blobHash(of: files[file])] = files[file]
            }
            try await git("-C", work, "add", ".")
            try await git("-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "round \(round)")
        }
        return (work, blobs)
    }

    /// The pack `git upload-pack` would send for `main`, with offset or reference deltas,
    /// and the depths of its delta chains as `git verify-pack` lists them.
    private func pack(of repository: String, offsetDeltas: Bool, in folder: TemporaryFolder) async throws -> (bytes: [UInt8], chains: String) {
        let base = folder.child(offsetDeltas ? "offset" : "reference")
        let options = offsetDeltas ? ["--delta-base-offset"] : []
        let hash = try await git(["-C", repository, "pack-objects", "-q", "--revs"] + options + [base], input: "main\n")
        #expect(hash.status == 0, "\(hash.stderr)")
        let name = base + "-" + hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let chains = try await git("verify-pack", "-v", name + ".idx").stdout
        return (Array(try Data(contentsOf: URL(fileURLWithPath: name + ".pack"))), chains)
    }

    /// Feeds `pack` through the check and into an arriving pack in chunks of random sizes on
    /// one thread while the reader follows it on another; returns what the reader read.
    private func readWhileArriving(
        _ pack: [UInt8], folder: TemporaryFolder, seed: UInt64, cacheBudget: Int = 4 << 20, stoppingAfter stop: Int? = nil
    ) async throws -> (blobs: [ObjectID: [UInt8]], readEveryBlob: Bool) {
        let arriving = try ArrivingPack(path: folder.child("arriving-\(seed).pack"))
        let read = Locked<[ObjectID: [UInt8]]>([:])
        async let reader = onOwnThread {
            ArrivingPackReader.forEachBlob(in: arriving, maximumObjectSize: 1 << 20, cacheBudget: cacheBudget) { id, object in
                #expect(object.kind == .blob)
                read.withLock { $0[id] = object.bytes }
            }
        }
        try await onOwnThread {
            let check = try IncomingPackCheck(limits: IncomingLimits(maximumObjectSize: 1 << 20, maximumFetchSize: 1 << 30))
            check.entryEnded = { arriving.entryArrived($0) }
            var random = SplitMix(state: seed)
            var start = 0
            while start < pack.count {
                if let stop, start >= stop {
                    arriving.stop()
                    return
                }
                let end = min(pack.count, start + Int.random(in: 1...5_000, using: &random))
                try pack[start..<end].withUnsafeBytes { bytes in
                    try check.consume(bytes)
                    arriving.write(bytes)
                }
                start = end
            }
            try check.finish()
            arriving.complete()
        }
        let readEveryBlob = try await reader
        return (read.withLock { $0 }, readEveryBlob)
    }

    @Test func everyBlobOfAPackWithOffsetDeltasIsReadAsGitWroteIt() async throws {
        let folder = TemporaryFolder("arriving-pack")
        let (repository, blobs) = try await repository(in: folder)
        let (pack, chains) = try await pack(of: repository, offsetDeltas: true, in: folder)
        #expect(chains.contains("chain length = 2"), "the pack holds chains of deltas")
        // With no object kept, each chain is followed back whole and applied in its order.
        for (seed, budget): (UInt64, Int) in [(1, 4 << 20), (2, 4 << 20), (3, 0)] {
            let (read, readEveryBlob) = try await readWhileArriving(pack, folder: folder, seed: seed, cacheBudget: budget)
            let same = read == blobs
            #expect(same, "seed \(seed): read \(read.count) of \(blobs.count) blobs")
            #expect(readEveryBlob)
        }
    }

    /// A reference delta names its base by an id the reader may not have met: it is passed
    /// over, and so is every delta made on it. What is read is still what git wrote.
    @Test func referenceDeltasArePassedOverAndTheRestReadAsGitWroteIt() async throws {
        let folder = TemporaryFolder("arriving-pack")
        let (repository, blobs) = try await repository(in: folder)
        let (pack, chains) = try await pack(of: repository, offsetDeltas: false, in: folder)
        #expect(chains.contains("chain length = 1"), "the pack holds deltas")
        let (read, readEveryBlob) = try await readWhileArriving(pack, folder: folder, seed: 4)
        #expect(!read.isEmpty && read.count < blobs.count, "\(read.count) of \(blobs.count)")
        #expect(!readEveryBlob, "blobs were passed over")
        for (id, bytes) in read {
            let same = blobs[id] == bytes
            #expect(same, "\(id.hex)")
        }
    }

    /// Stopped before the pack has arrived, the reader returns with what it read, and the
    /// copy is gone.
    @Test func aStoppedReaderReturnsAndTheCopyIsRemoved() async throws {
        let folder = TemporaryFolder("arriving-pack")
        let (repository, blobs) = try await repository(in: folder)
        let (pack, _) = try await pack(of: repository, offsetDeltas: true, in: folder)
        let (read, readEveryBlob) = try await readWhileArriving(pack, folder: folder, seed: 6, stoppingAfter: pack.count / 2)
        #expect(read.count < blobs.count && !readEveryBlob)
        for (id, bytes) in read {
            let same = blobs[id] == bytes
            #expect(same, "\(id.hex)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.child("arriving-6.pack")))
    }
}
