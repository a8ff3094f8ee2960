import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// History policies: pack() compacts, archives are kept or dropped, forks move, shared stores
/// leave compaction to an owner.
@Suite("History horizon")
struct HistoryHorizonTests {
    private func makeFilms(_ options: StoreOptions = StoreOptions(), edits: Int = 10) async throws -> (TemporaryFolder, RecordStore<Film>) {
        let folder = TemporaryFolder()
        let films = try await RecordStore<Film>.create(at: folder.child("films"), options: options)
        for index in 0..<edits {
            try await films.save(Film(id: "f\(index % 4)", title: "Take \(index)", year: 1900 + index))
        }
        return (folder, films)
    }

    private func output(_ arguments: String...) async throws -> String {
        try await git(arguments).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func packCompactsAsThePolicyAsksAndKeepsTheArchive() async throws {
        var options = StoreOptions()
        options.history = .keepCommits(3)
        let (folder, films) = try await makeFilms(options)
        _ = folder
        let before = try await films.records().sorted { $0.id < $1.id }
        let oldHead = try await films.head()
        #expect(try await films.checkpoint() == nil)
        try await films.pack()
        let history = try await films.history()
        #expect(history.count == 4)
        let checkpoint = try #require(try await films.checkpoint())
        #expect(history.last?.id == checkpoint.id)
        #expect(try await films.records().sorted { $0.id < $1.id } == before)
        #expect(try await output("--git-dir", films.path, "rev-parse", "refs/forkstore/archive/\(checkpoint.id.hex)") == oldHead.id.hex)
        try await expectFsckClean(films.path)
        // A second pack within the policy changes nothing.
        try await films.pack()
        #expect(try await films.head() == history[0])
        // Replay reads the archived history too while the archive is kept.
        #expect(try await films.replayHistory().commits == 11 + 4)
    }

    @Test func aDroppedArchiveIsFreedByPack() async throws {
        var options = StoreOptions()
        options.history = .keepCommits(2, archive: .drop)
        options.pruneGracePeriod = 0
        let (folder, films) = try await makeFilms(options, edits: 30)
        _ = folder
        let old = try await films.history()[10]
        let before = try await films.records().sorted { $0.id < $1.id }
        try await films.pack()
        #expect(try await output("--git-dir", films.path, "for-each-ref", "refs/forkstore/archive").isEmpty)
        let probe = try await git("--git-dir", films.path, "cat-file", "-e", old.id.hex)
        #expect(probe.status != 0, "the old commit is still there")
        try await expectFsckClean(films.path)
        #expect(try await films.records().sorted { $0.id < $1.id } == before)
        // Replay starts at the checkpoint.
        #expect(try await films.replayHistory().commits == 3)
        let reopened = try await RecordStore<Film>.open(at: films.path)
        #expect(try await reopened.count() == before.count)
    }

    /// Freeing copies the reachable entries of packs as they are, deltas included, and writes
    /// whole a kept delta whose base goes: with the store repacked by git into offset deltas or
    /// reference deltas (old versions of records as bases), git reads the store whole, the old
    /// commits are gone, and so are the old versions.
    @Test(arguments: ["true", "false"])
    func freeingWritesWholeADeltaWhoseBaseGoes(offsetDeltas: String) async throws {
        var options = StoreOptions()
        options.history = .keepCommits(3, archive: .drop)
        options.pruneGracePeriod = 0
        let folder = TemporaryFolder()
        let films = try await RecordStore<Film>.create(at: folder.child("films"), options: options)
        let long = String(repeating: "A long description that deltas well. ", count: 40)
        for index in 0..<40 {
            try await films.save(Film(id: "f\(index % 5)", title: "Take \(index) " + long, year: 1900 + index))
        }
        let repacked = try await git("--git-dir", films.path, "-c", "repack.useDeltaBaseOffset=\(offsetDeltas)", "repack", "-adf", "--window=50")
        #expect(repacked.status == 0, "\(repacked.stderr)")
        let verified = try await git("verify-pack", "-v", try #require(FileManager.default.contentsOfDirectory(atPath: films.path + "/objects/pack")
            .first { $0.hasSuffix(".idx") }.map { films.path + "/objects/pack/" + $0 }))
        #expect(verified.stdout.contains("chain length = 1"), "git wrote no deltas: \(verified.stdout.suffix(300))")
        let old = try await films.history()[30]
        let before = try await films.records().sorted { $0.id < $1.id }

        try await films.pack()
        #expect(try await git("--git-dir", films.path, "cat-file", "-e", old.id.hex).status != 0, "the old commit is still there")
        let objects = try await git("--git-dir", films.path, "count-objects", "-v").stdout
        #expect(objects.contains("count: 0"), "\(objects)")
        let reachable = try await git("--git-dir", films.path, "rev-list", "--objects", "--all").stdout.split(separator: "\n").count
        let packed = try await git("--git-dir", films.path, "verify-pack", "-v", try #require(FileManager.default.contentsOfDirectory(atPath: films.path + "/objects/pack")
            .first { $0.hasSuffix(".idx") }.map { films.path + "/objects/pack/" + $0 })).stdout.split(separator: "\n").filter { $0.count > 40 && $0.prefix(40).allSatisfy(\.isHexDigit) }.count
        #expect(packed == reachable, "the new pack keeps only what references reach")
        try await expectFsckClean(films.path)
        #expect(try await RecordStore<Film>.open(at: films.path).records().sorted { $0.id < $1.id } == before)
        #expect(try await films.history().count == 4)
    }

    @Test func keepDaysPutsTheHorizonAtTheNewestCommitOlderThanThat() async throws {
        let clock = TestClock()
        let (folder, films) = try await makeFilms(clock.options, edits: 3)
        _ = folder
        clock.advance(3 * 86_400)
        try await films.save(Film(id: "new", title: "New", year: 2026))
        clock.advance(3600)
        let horizon = try await films.history()[1]
        let compaction = try #require(try await films.compactHistory(keeping: .keepDays(2)))
        #expect(compaction.horizon == horizon.id)
        #expect(try await films.history().count == 2)
    }

    /// On its own a policy compacts only once the history has grown to twice what it keeps,
    /// so a pack after every few commits does not replay the kept commits each time; an
    /// explicit `compactHistory(keeping:)` compacts at once.
    @Test func packCompactsAgainOnlyOnceTheHistoryDoubled() async throws {
        var options = StoreOptions()
        options.history = .keepCommits(4)
        let (folder, films) = try await makeFilms(options, edits: 7)  // 8 commits: not past 2 × 4
        _ = folder
        try await films.pack()
        #expect(try await films.checkpoint() == nil)
        try await films.save(Film(id: "ninth", title: "Ninth", year: 9))
        try await films.pack()
        let first = try #require(try await films.checkpoint())
        #expect(try await films.history().count == 5)
        for index in 0..<3 { try await films.save(Film(id: "n\(index)", title: "N", year: index)) }
        try await films.pack()  // 8 commits from the checkpoint: not yet
        #expect(try await films.checkpoint()?.id == first.id)
        #expect(try await films.history().count == 8)
        try await films.save(Film(id: "n4", title: "N", year: 4))
        try await films.pack()
        #expect(try await films.checkpoint()?.id != first.id)
        #expect(try await films.history().count == 5)
        // Asked for, a compaction happens whatever the length.
        try await films.save(Film(id: "n5", title: "N", year: 5))
        #expect(try await films.compactHistory(keeping: .keepCommits(4)) != nil)
    }

    @Test func keepDaysCompactsAgainOnlyOnceTheOldestCommitIsTwiceThatOld() async throws {
        let clock = TestClock()
        var options = clock.options
        options.history = .keepDays(2)
        let (folder, films) = try await makeFilms(options, edits: 3)
        _ = folder
        clock.advance(3 * 86_400)
        try await films.save(Film(id: "new", title: "New", year: 2026))
        try await films.pack()  // the oldest commit is 3 days old: not past 4
        #expect(try await films.checkpoint() == nil)
        clock.advance(86_400 + 60)
        try await films.save(Film(id: "newer", title: "Newer", year: 2026))
        try await films.pack()
        #expect(try await films.checkpoint() != nil)
    }

    /// Freeing the old history waits for no sync and takes nothing from one: while the sync
    /// lock is held (a sync may have moved fetched packs in before the ref that reaches them),
    /// pack leaves the freeing, and its note, to the next pack.
    @Test func freeingTheOldHistoryIsLeftForLaterWhileASyncRuns() async throws {
        var options = StoreOptions()
        options.history = .keepCommits(2, archive: .drop)
        options.pruneGracePeriod = 0
        let (folder, films) = try await makeFilms(options, edits: 12)
        _ = folder
        let old = try await films.history()[8]
        let ran = try films.engine.withSyncLock(waitingAtMost: .zero) { try films.pack() }
        #expect(ran != nil)
        #expect(try await git("--git-dir", films.path, "cat-file", "-e", old.id.hex).status == 0, "freed under a running sync")
        #expect(FileManager.default.fileExists(atPath: films.path + "/forkstore-prune-due"))
        try await films.pack()
        #expect(try await git("--git-dir", films.path, "cat-file", "-e", old.id.hex).status != 0)
        #expect(!FileManager.default.fileExists(atPath: films.path + "/forkstore-prune-due"))
        try await expectFsckClean(films.path)
    }

    @Test func forksAfterTheHorizonMoveOntoTheNewHistory() async throws {
        let (folder, films) = try await makeFilms(edits: 4)
        _ = folder
        let early = try Fork("early"), late = try Fork("late")
        try await films.createFork(early)
        try await films.save(Film(id: "early", title: "Early", year: 1), to: early)
        for index in 0..<3 { try await films.save(Film(id: "m\(index)", title: "Main", year: index)) }
        try await films.createFork(late)
        try await films.save(Film(id: "late", title: "Late", year: 2), to: late)
        try await films.save(Film(id: "late2", title: "Later", year: 3), to: late)
        try await films.save(Film(id: "m9", title: "Main again", year: 9))
        let lateBefore = try await films.records(in: late).sorted { $0.id < $1.id }
        let earlyHead = try await films.head(of: early)

        let compaction = try #require(try await films.compactHistory(keeping: .keepCommits(2)))
        #expect(compaction.movedForks == [late])
        // `late` now builds on the checkpoint lineage, with the same records.
        let lateHistory = try await films.history(of: late)
        #expect(lateHistory.last?.id == compaction.checkpoint)
        #expect(try await films.records(in: late).sorted { $0.id < $1.id } == lateBefore)
        // `early` branched before the horizon: it stays on the old history, which its ref keeps.
        #expect(try await films.head(of: early) == earlyHead)
        // Merging both still works, and nothing is lost.
        try await films.mergeIntoMain(from: late)
        try await films.mergeIntoMain(from: early)
        let ids = Set(try await films.records().map(\.id))
        #expect(ids.isSuperset(of: ["early", "late", "late2", "m0", "m9"]))
        try await expectFsckClean(films.path)
    }

    /// A fork that branched before the horizon merges into the compacted `main` by a
    /// carry-over against their common history, not the two-way salvage: main's deletions
    /// and edits since the fork stay, the fork's own changes arrive, and the old history does
    /// not come back in as a second parent. Merging the other way moves the fork onto main's
    /// lineage.
    @Test func aForkOnTheOldHistoryIsCarriedOverNotSalvaged() async throws {
        let (folder, films) = try await makeFilms(edits: 4)  // f0…f3
        _ = folder
        let early = try Fork("early"), other = try Fork("other")
        try await films.createFork(early)
        try await films.createFork(other)
        try await films.save(Film(id: "early", title: "Early", year: 1), to: early)
        try await films.save(Film(id: "f1", title: "Edited on early", year: 1901), to: early)
        try await films.save(Film(id: "f3", title: "Edited on other", year: 1903), to: other)
        try await films.delete("f0")
        try await films.save(Film(id: "f2", title: "Edited on main", year: 1902))
        for index in 0..<3 { try await films.save(Film(id: "m\(index)", title: "Main", year: index)) }

        let compaction = try #require(try await films.compactHistory(keeping: .keepCommits(2)))
        #expect(compaction.movedForks.isEmpty)
        let merged = try await films.mergeIntoMain(from: early)
        let head = try await films.head()
        #expect(head.parents.count == 1, "a carry-over has one parent: \(merged)")
        #expect(head.trailer("Carried-From") == (try await films.head(of: early).id.hex))
        #expect(try await films.history().last?.id == compaction.checkpoint)
        let records = Dictionary(uniqueKeysWithValues: try await films.records().map { ($0.id, $0.title) })
        #expect(records["f0"] == nil, "main's deletion stays")
        #expect(records["f1"] == "Edited on early")
        #expect(records["f2"] == "Edited on main")
        #expect(records["early"] == "Early")
        #expect(Set(records.keys) == ["early", "f1", "f2", "f3", "m0", "m1", "m2"])
        // The losing head stays archived, as the history a compaction replaces does.
        let earlyHead = try await films.head(of: early).id.hex
        #expect(try await output("--git-dir", films.path, "rev-parse", "refs/forkstore/archive/carried/\(earlyHead)") == earlyHead)

        // The other way: `other` moves onto main's lineage, its edit carried.
        try await films.mergeFromMain(into: other)
        #expect(try await films.history(of: other).last?.id == compaction.checkpoint)
        let onOther = Dictionary(uniqueKeysWithValues: try await films.records(in: other).map { ($0.id, $0.title) })
        #expect(onOther["f0"] == nil)
        #expect(onOther["f3"] == "Edited on other")
        #expect(onOther["f2"] == "Edited on main")
        try await expectFsckClean(films.path)
    }

    @Test func inASharedStoreOnlyAnOwnerCompactsAndSignsTheCheckpoint() async throws {
        let folder = TemporaryFolder()
        func key(_ name: String) async throws -> SigningKey {
            let file = folder.child("key-\(name)")
            let made = try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", file])
            #expect(made.status == 0, "\(made.stderr)")
            return try SigningKey(contentsOfFile: file)
        }
        let owner = try await key("owner"), writer = try await key("writer")
        var ownerOptions = StoreOptions()
        ownerOptions.signingKey = owner
        let films = try await RecordStore<Film>.create(at: folder.child("films"), options: ownerOptions)
        try await films.setParticipants([
            Participant(key: owner.publicKey, access: .owner, name: "owner"),
            Participant(key: writer.publicKey, access: .write, name: "writer"),
        ])
        for index in 0..<5 { try await films.save(Film(id: "f\(index)", title: "T", year: index)) }

        var writerOptions = StoreOptions()
        writerOptions.signingKey = writer
        let asWriter = try await RecordStore<Film>.open(at: films.path, options: writerOptions)
        let refused = await #expect(throws: StoreError.self) { try await asWriter.compactHistory(keeping: .keepCommits(2)) }
        #expect(refused?.code == .compactionRefused)
        let unsigned = try await RecordStore<Film>.open(at: films.path)
        await #expect(throws: StoreError.self) { try await unsigned.compactHistory(keeping: .keepCommits(2)) }
        // pack() under a policy leaves it to an owner rather than failing.
        var writerPolicy = writerOptions
        writerPolicy.history = .keepCommits(2)
        try await RecordStore<Film>.open(at: films.path, options: writerPolicy).pack()
        #expect(try await films.checkpoint() == nil)

        let compaction = try #require(try await films.compactHistory(keeping: .keepCommits(2)))
        for id in [compaction.checkpoint, compaction.newHead] {
            let raw = try await output("--git-dir", films.path, "cat-file", "commit", id.hex)
            #expect(raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"), "\(raw)")
        }
        #expect(try await films.participants().count == 2)
        try await expectFsckClean(films.path)
    }
}
