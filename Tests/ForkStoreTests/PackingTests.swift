import ForkStore
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// The records the stress writer writes.
struct StressItem: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var text: String
}

/// How many files the store's object database holds.
func objectFiles(_ store: String) -> Int {
    let objects = store + "/objects"
    return (FileManager.default.enumerator(atPath: objects)?.allObjects as? [String] ?? [])
        .filter { !((try? FileManager.default.attributesOfItem(atPath: objects + "/" + $0))?[.type] as? FileAttributeType == .typeDirectory) }
        .count
}

@Suite("Packing and crashes")
struct PackingTests {
    @Test func looseObjectsArePackedOnPolicyAndOnDemandWithNothingLost() async throws {
        let folder = TemporaryFolder()
        var options = StoreOptions()
        options.packThreshold = 64
        let films = try await RecordStore<Film>.create(at: folder.child("films"), options: options)
        for round in 0..<130 {
            try await films.save(Film(id: "film-\(round)", title: "Title \(round)", year: round))
        }
        let counted = try await git("--git-dir", films.path, "count-objects", "-v").stdout
        func value(_ key: String) -> Int {
            counted.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        #expect(value("in-pack") > 0, "the policy packed: \(counted)")
        try await films.pack()
        let after = try await git("--git-dir", films.path, "count-objects", "-v").stdout
        #expect(after.contains("count: 0"))
        #expect(try await films.count() == 130)
        #expect(try await RecordStore<Film>.open(at: films.path).record("film-77")?.year == 77)
        try await expectFsckClean(films.path)
    }

    @Test func leftoversOfAKilledWriterAreRemovedByTheNextWrite() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"))
        try await store.save(StressItem(id: "a", text: "before"))
        let orphan = store.path + "/objects/pack/pack-" + String(repeating: "ab", count: 20)
        let leftovers = [
            store.path + "/objects/pack/pack_git2_1a2b3c", store.path + "/objects/ab/tmp_object_git2_x9y8",
            store.path + "/objects/pack/tmp_forkstore_pack_5D0C", store.path + "/objects/pack/tmp_forkstore_pack_5D0C.idx",
            orphan + ".pack",  // a packer killed between renaming its pack and its index
        ]
        try FileManager.default.createDirectory(atPath: store.path + "/objects/ab", withIntermediateDirectories: true)
        for path in leftovers { #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 4096))) }
        let reopened = try await RecordStore<StressItem>.open(at: store.path)
        try await reopened.save(StressItem(id: "b", text: "after"))
        for path in leftovers { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        try await expectFsckClean(store.path)
    }

    @Test func aLockFileALiveProcessHoldsIsWaitedForNotDeleted() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("before")
        // A live `git` holds main.lock open; it is old, but it is not stale.
        let lock = store.path + "/refs/heads/main.lock"
        #expect(FileManager.default.createFile(atPath: lock, contents: Data("0000\n".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: lock)
        let holder = try #require(FileHandle(forUpdatingAtPath: lock))
        // The write waits for the lock on a thread of its own.
        let writer = Task { try await onOwnThread { try store.add("after") } }
        try await Task.sleep(for: .milliseconds(700))
        #expect(FileManager.default.fileExists(atPath: lock), "the store deleted a lock a live process held")
        // The other process finishes: it closes and removes its lock.
        try holder.close()
        try FileManager.default.removeItem(atPath: lock)
        _ = try await writer.value
        #expect(try store.items() == ["before", "after"])
    }

    @Test func anImportKilledAtAnyMomentLosesNoAcknowledgedRecord() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"))
        var acknowledged = 0
        for round in 0..<6 {
            let done = try await runStressWriter(
                ["import", store.path, "r\(round)", "200000", "100"], killAfter: 1 + round % 3)
            acknowledged = max(acknowledged, 0) + (done.last.flatMap { Int($0) } ?? 0)
            let reopened = try await RecordStore<StressItem>.open(at: store.path)
            let last = try #require(done.last.flatMap { Int($0) })
            for index in stride(from: 0, to: last, by: max(1, last / 50)) {
                #expect(try await reopened.record("r\(round)-\(index)") != nil, "round \(round): r\(round)-\(index) lost")
            }
            try await reopened.save(StressItem(id: "after-\(round)", text: "the next write works"))
            try await expectFsckClean(store.path)
            let pack = try FileManager.default.contentsOfDirectory(atPath: store.path + "/objects/pack")
            #expect(!pack.contains { $0.hasPrefix("pack_git2_") || $0.hasPrefix("tmp_") }, "temporary files left: \(pack)")
        }
        #expect(acknowledged >= 6 * 1600)
    }

    @Test func anImportAndOneByOneWritesFromTwoProcessesLoseNothing() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"))
        async let imported = runStressWriter(["import", store.path, "bulk", "20000", "500"], killAfter: nil)
        async let saved = runStressWriter(["save", store.path, "single", "150"], killAfter: nil)
        let (bulk, single) = try await (imported, saved)
        #expect(bulk.last == "20000" && single.count == 150)
        let reopened = try await RecordStore<StressItem>.open(at: store.path)
        #expect(try await reopened.count() == 20_150)
        let ids = Set(try await reopened.records().map(\.id))
        #expect(ids.count == 20_150 && ids.contains("bulk-19999") && ids.contains("single-149"))
        try await expectFsckClean(store.path)
        #expect(objectFiles(store.path) < 200, "\(objectFiles(store.path)) files")
    }

    @Test func anImportWritesOnePackWithTheNewestTreesWholeAndTheRestAsDeltas() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"))
        var next = 0
        let report = try await store.importRecords(batchSize: 500) { () -> StressItem? in
            defer { next += 1 }
            return next < 4_000 ? StressItem(id: "item-\(next)", text: "text \(next)") : nil
        }
        #expect(report.commits == 8)
        let folderOfPacks = store.path + "/objects/pack"
        let packs = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).filter { $0.hasSuffix(".idx") }
        #expect(packs.count == 1, "\(packs)")
        let pack = try #require(packs.first)
        // git applies every delta we wrote: the pack verifies and the store is sound.
        let verified = try await git("verify-pack", "-v", folderOfPacks + "/" + pack)
        #expect(verified.status == 0, "\(verified.stderr)")
        func deltas(of kind: String) -> Int {
            verified.stdout.split(separator: "\n").filter { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count == 7 && fields[1] == kind
            }.count
        }
        // The newest records tree is whole; the seven before it are a chain of deltas, newest
        // first. Blobs are deltas against a shared base, one link deep.
        #expect(deltas(of: "tree") >= 7, "\(verified.stdout.suffix(600))")
        #expect(verified.stdout.contains("chain length = 7"), "\(verified.stdout.suffix(600))")
        #expect(deltas(of: "blob") > 3_000, "\(verified.stdout.suffix(600))")
        let newestRecordsTree = try await git("--git-dir", store.path, "rev-parse", "main:records").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(verified.stdout.contains("\(newestRecordsTree) tree "), "\(verified.stdout.suffix(600))")
        #expect(!verified.stdout.split(separator: "\n").contains { $0.hasPrefix(newestRecordsTree) && $0.split(separator: " ").count == 7 })
        try await expectFsckClean(store.path)
        #expect(try await git("--git-dir", store.path, "ls-tree", "-r", "--name-only", "main").stdout.split(separator: "\n").count == 4_000)
        #expect(try await store.count() == 4_000)
        #expect(try await store.record("item-3999")?.text == "text 3999")
    }

    @Test func packsRollIntoOneKeepingTheirDeltasAndDroppingDuplicates() async throws {
        let folder = TemporaryFolder()
        var options = StoreOptions()
        options.packThreshold = 10_000
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"), options: options)
        func item(_ index: Int, _ round: Int) -> StressItem {
            StressItem(id: "item-\(index)", text: String(repeating: "shared text \(index) ", count: 40) + "round \(round)")
        }
        // Batches large enough to become packs; then single saves, left loose.
        for round in 0..<4 { try await store.save((0..<40).map { item($0, round) }) }
        for index in 0..<10 { try await store.save(item(index, 4)) }
        // git's own pack of everything, with offset deltas: the packed objects a second time,
        // and the loose ones, some of them deltas against objects of the first kind.
        #expect(try await git("--git-dir", store.path, "repack", "-a", "-q").status == 0)
        let folderOfPacks = store.path + "/objects/pack"
        let before = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).filter { $0.hasSuffix(".pack") }
        #expect(before.count >= 5)

        _ = try await store.pack()

        let after = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks)
        #expect(after.filter { $0.hasSuffix(".pack") }.count == 1, "\(after)")
        #expect(after.filter { $0.hasSuffix(".idx") }.count == 1 && !after.contains { $0.hasSuffix(".rev") }, "\(after)")
        try await expectFsckClean(store.path)
        let pack = try #require(after.first { $0.hasSuffix(".idx") })
        let verified = try await git("verify-pack", "-v", folderOfPacks + "/" + pack)
        #expect(verified.status == 0 && verified.stdout.contains("chain length = 1"), "no deltas kept: \(verified.stdout.suffix(400))")
        let unique = try await git("--git-dir", store.path, "cat-file", "--batch-all-objects", "--batch-check").stdout
            .split(separator: "\n").count
        let counted = try await git("--git-dir", store.path, "count-objects", "-v").stdout
        #expect(counted.contains("in-pack: \(unique)\n"), "objects twice in the pack: \(unique) unique; \(counted)")
        // The handle that had the old packs open reads on, and so does a new one.
        for reader in [store, try await RecordStore<StressItem>.open(at: store.path)] {
            #expect(try await reader.records().count == 40)
            #expect(try await reader.record("item-3")?.text.hasSuffix("round 4") == true)
            #expect(try await reader.record("item-30")?.text.hasSuffix("round 3") == true)
        }
    }

    /// libgit2 keeps every pack it opened mapped, even once a roll-up removed it: a store's
    /// handle lets them go at its next use (before, a 1 GB import ended with 60 MB of indexes
    /// of removed packs mapped).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/maps")))
    func aStoreLetsGoOfThePacksARollUpRemoved() async throws {
        let folder = TemporaryFolder()
        let store = try Self.storeOfThreePacks(in: folder)
        let folderOfPacks = store.path + "/objects/pack/"
        let old = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).filter { $0.hasSuffix(".idx") }
        #expect(old.count == 3)
        // A handle of its own, which has cached nothing: its reads map every pack's index.
        let reader = try await RecordStore<StressItem>.open(at: store.path)
        #expect(try await reader.records().count == 40)
        func mapped() throws -> [String] {
            let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
            return old.filter { maps.contains(folderOfPacks + $0) }
        }
        // Alone, the read maps all three indexes; in the whole suite libgit2 sometimes maps
        // none of them (its mapping budget is process-wide), and then there is nothing to see.
        guard try !mapped().isEmpty else { return }

        _ = try await store.pack()
        #expect(try await reader.record("item-3")?.text == "round 2 3")

        let stillMapped = try mapped()
        #expect(stillMapped.isEmpty, "removed packs still mapped: \(stillMapped)")
        try await expectFsckClean(store.path)
    }

    /// 40 records saved three times as batches, each batch a pack of its own.
    static func storeOfThreePacks(in folder: TemporaryFolder) throws -> RecordStore<StressItem> {
        var options = StoreOptions()
        options.packThreshold = 10_000
        let store = try RecordStore<StressItem>.create(at: folder.child("store"), options: options)
        for round in 0..<3 { try store.save((0..<40).map { StressItem(id: "item-\($0)", text: "round \(round) \($0)") }) }
        return store
    }

    @Test func aRollUpRefusesAPackWhoseEntriesDoNotMatchTheirChecksums() throws {
        let folder = TemporaryFolder()
        let store = try Self.storeOfThreePacks(in: folder)
        let folderOfPacks = store.path + "/objects/pack/"
        let packs = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).filter { $0.hasSuffix(".pack") }.sorted()
        #expect(packs.count == 3)
        // One byte of an entry's compressed data flipped, as a failing disk might.
        let damaged = folderOfPacks + packs[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[bytes.count - 40] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))

        #expect { try store.pack() } throws: { "\($0)".contains("does not match its checksum") }
        let after = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks)
        #expect(Set(packs).isSubset(of: after), "a pack was removed: \(after)")
        #expect(!after.contains { $0.hasPrefix("tmp_") }, "temporary files left: \(after)")
    }

    @Test func aRollUpWhoseNewPackDoesNotReadBackKeepsEveryOldPack() async throws {
        let folder = TemporaryFolder()
        let store = try Self.storeOfThreePacks(in: folder)
        let folderOfPacks = store.path + "/objects/pack/"
        let before = try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).sorted()
        #expect(before.filter { $0.hasSuffix(".pack") }.count == 3)
        let repository = try Repository.openBare(at: store.path)
        // The new pack damaged after it was written and before it is read back, as a bug in
        // the copy (a wrongly re-aimed delta) or the disk would leave it.
        #expect {
            try repository.rollUp(repository.packs()) { path in
                guard var bytes = FileManager.default.contents(atPath: path) else { return }
                bytes[bytes.count / 2] ^= 0x10
                try? FileManager.default.removeItem(atPath: path)
                _ = FileManager.default.createFile(atPath: path, contents: bytes)
            }
        } throws: { "\($0)".contains("did not read back, the old packs are kept") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).sorted() == before)
        try await expectFsckClean(store.path)
        let reopened = try await RecordStore<StressItem>.open(at: store.path)
        #expect(try await reopened.records().count == 40)
        #expect(try await reopened.record("item-7")?.text == "round 2 7")
        // Undamaged, the same roll-up goes through.
        #expect(try repository.rollUp(repository.packs()) > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folderOfPacks).filter { $0.hasSuffix(".pack") }.count == 1)
        try await expectFsckClean(store.path)
    }

    @Test func aRollUpKilledAtAnyMomentLosesNothing() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"))
        for round in 0..<6 {
            // Enough equal packs that the roll-up copies them all.
            for batch in 0..<12 {
                try await store.save((0..<60).map { StressItem(id: "r\(round)-\(batch)-\($0)", text: String(repeating: "text \($0) ", count: 20)) })
            }
            let done = try await runStressWriter(["pack", store.path], killAfter: 1, delay: Double(round) * 0.01)
            #expect(done.first == "start")
            let reopened = try await RecordStore<StressItem>.open(at: store.path)
            #expect(try await reopened.count() == (round + 1) * 12 * 60)
            #expect(try await reopened.records().count == (round + 1) * 12 * 60, "round \(round)")
            try await expectFsckClean(store.path)
            try await reopened.save(StressItem(id: "after-\(round)", text: "the next write works"))
            let files = try FileManager.default.contentsOfDirectory(atPath: store.path + "/objects/pack")
            #expect(!files.contains { $0.hasPrefix("pack_git2_") || $0.hasPrefix("tmp_") }, "temporary files left: \(files)")
            try await reopened.delete("after-\(round)")
        }
        _ = try await store.pack()
        let files = try FileManager.default.contentsOfDirectory(atPath: store.path + "/objects/pack")
        #expect(files.filter { $0.hasSuffix(".pack") }.count == 1 && files.count == 2, "\(files)")
        try await expectFsckClean(store.path)
    }
}

@Suite("A fetched pack moved into the store")
struct PackAdoptionTests {
    /// A repository whose objects are three blobs in one pack, made by git itself.
    private func packedSource(_ folder: TemporaryFolder) async throws -> (Repository, ids: [ObjectID]) {
        let path = folder.child("source.git")
        _ = try Repository.createBare(at: path, initialBranch: "main")
        var ids: [ObjectID] = []
        for text in ["one", "two", "three"] {
            ids.append(try #require(ObjectID(hex: try await git("--git-dir", path, "hash-object", "-w", "--stdin", input: text).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines))))
        }
        #expect(try await git("--git-dir", path, "pack-objects", "-q", path + "/objects/pack/pack", input: ids.map(\.hex).joined(separator: "\n") + "\n").status == 0)
        _ = try await git("--git-dir", path, "prune-packed")
        return (try Repository.openBare(at: path), ids)
    }

    @Test func aPackHoldingOnlyCheckedObjectsIsMovedAsItIs() async throws {
        let folder = TemporaryFolder()
        let (source, ids) = try await packedSource(folder)
        let packs = try FileManager.default.contentsOfDirectory(atPath: source.gitDirectory + "objects/pack").sorted()
        let target = try Repository.createBare(at: folder.child("target.git"), initialBranch: "main")
        #expect(try target.adoptPacks(of: source, holdingOnly: Set(ids)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.gitDirectory + "objects/pack").sorted() == packs)
        // Linked, not copied or moved: the source stays whole until it is cleared.
        for name in packs {
            let inode = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int }
            #expect(try inode(source.gitDirectory + "objects/pack/" + name) == inode(target.gitDirectory + "objects/pack/" + name))
        }
        for id in ids { #expect(target.contains(id)) }
        #expect(try await git("--git-dir", target.gitDirectory, "fsck", "--strict").status == 0)
    }

    @Test func aPackHoldingAnythingElseIsLeftWhereItIs() async throws {
        let folder = TemporaryFolder()
        let (source, ids) = try await packedSource(folder)
        let target = try Repository.createBare(at: folder.child("target.git"), initialBranch: "main")
        #expect(try !target.adoptPacks(of: source, holdingOnly: Set(ids.dropLast())))
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.gitDirectory + "objects/pack").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: source.gitDirectory + "objects/pack").count == 2)
        // What the target holds already need not have been checked again.
        _ = try await git("--git-dir", target.gitDirectory, "hash-object", "-w", "--stdin", input: "three")
        try target.refreshObjects()
        #expect(try target.adoptPacks(of: source, holdingOnly: Set(ids.dropLast())))
    }
}
