import ForkStore
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// Sets a file's modification time.
func setModified(_ path: String, to date: Date) throws {
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
}

@Suite("Assets: collection")
struct AssetsCollectionTests {
    /// Over both layouts: an asset no commit of any reference reaches goes once the grace
    /// period is over; those of `main`, of another fork, of history only and pinned ones stay.
    @Test(arguments: Layout.allCases)
    func whatNoHistoryNorPinNeedsGoesAfterTheGracePeriod(_ layout: Layout) async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let draft = try Fork("draft")
        let save: @Sendable (Asset?, Fork) async throws -> Void
        let store: any VersionedStore
        switch layout {
        case .value:
            let values = try await Store<Poster>.create(at: path, options: clock.options)
            save = { asset, fork in try await values.save(Poster(title: "p", image: asset), to: fork) }
            store = values
        case .records:
            let records = try await RecordStore<Attachment>.create(at: path, options: clock.options)
            save = { asset, fork in try await records.save(Attachment(id: "a", file: asset), to: fork) }
            store = records
        }
        let inHistory = try await store.addAsset(Data("replaced later".utf8))
        try await save(inHistory, .main)
        let onMain = try await store.addAsset(Data("on main".utf8))
        try await save(onMain, .main)
        try await store.createFork(draft)
        let onDraft = try await store.addAsset(Data("on the draft fork".utf8))
        try await save(onDraft, draft)
        let pinned = try await store.addAsset(Data("pinned".utf8))
        try await store.pin(pinned)
        let unused = try await store.addAsset(randomBytes(5000))

        // Within the grace period, nothing goes.
        #expect(try await store.collectAssets() == AssetCollection(removed: 0, bytesFreed: 0, kept: 5))
        clock.advance(59 * 60)
        #expect(try await store.collectAssets().removed == 0)
        // Well past the hour: the files' times are the real clock's, which a slow run (a
        // sanitizer on a busy machine) moves on by minutes since the test clock was set.
        clock.advance(2 * 3600)
        #expect(try await store.collectAssets() == AssetCollection(removed: 1, bytesFreed: 5000, kept: 4))
        #expect(!store.isLocal(unused))
        for asset in [inHistory, onMain, onDraft, pinned] { #expect(store.isLocal(asset)) }

        try await store.deleteFork(draft)
        try await store.unpin(pinned)
        #expect(try await store.collectAssets() == AssetCollection(removed: 2, bytesFreed: onDraft.size + pinned.size, kept: 2))
        #expect(store.isLocal(inHistory) && store.isLocal(onMain))
        #expect(files(under: path + "/lfs/tmp").isEmpty)
        try await expectFsckClean(path)
    }

    /// The same bytes added again restart the grace period: an old object an app adds again
    /// (and has not saved yet) is not collected under it.
    @Test func addingAgainRestartsTheGracePeriod() async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"), options: clock.options)
        let bytes = randomBytes(3000)
        let asset = try await store.addAsset(bytes)
        let path = try await store.localURL(of: asset).path
        try setModified(path, to: Date().addingTimeInterval(-7200))
        _ = try await store.addAsset(bytes)
        #expect(try await store.collectAssets().removed == 0)
        try setModified(path, to: Date().addingTimeInterval(-7200))
        #expect(try await store.collectAssets().removed == 1)
    }

    /// `pack()` collects too.
    @Test func packCollects() async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"), options: clock.options)
        let kept = try await store.addAsset(Data("kept".utf8))
        try await store.save(Attachment(id: "a", file: kept))
        let unused = try await store.addAsset(Data("unused".utf8))
        clock.advance(7200)
        try await store.pack()
        #expect(store.isLocal(kept) && !store.isLocal(unused))
    }

    /// References the app's forks do not show keep their assets too: a ref another tool made,
    /// `cloud`, and a fetch refused and kept in the transfer repository's quarantine. A
    /// reference in a form `Asset` reads but the format does not allow (an id in upper case)
    /// keeps its asset as well.
    @Test func everyReferenceOfTheStoreAndItsQuarantineKeeps() async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let store = try await RecordStore<Attachment>.create(at: path, options: clock.options)
        let base = try await store.head().id.hex
        let other = try await store.addAsset(Data("under another tool's ref".utf8))
        let cloud = try await store.addAsset(Data("on cloud".utf8))
        let quarantined = try await store.addAsset(Data("in quarantine".utf8))
        let upperCase = try await store.addAsset(Data("named in upper case".utf8))
        let unused = try await store.addAsset(Data("unused".utf8))

        /// A commit on `base` holding one record that references `asset` (its id as `id`).
        func commit(_ asset: Asset, id: String? = nil, in gitDirectory: String) async throws -> String {
            let text = #"{"id":"a","modelVersion":1,"record":{"file":{"$asset":"\#(id ?? asset.id.oid)","size":\#(asset.size)},"id":"a","title":""}}"#
            let record = String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
            let blob = try await git("--git-dir", gitDirectory, "hash-object", "-w", "--stdin", input: record).stdout.trimmed
            let recordPath = RecordPath(id: "a")
            var tree = try await git("--git-dir", gitDirectory, "mktree", input: "100644 blob \(blob)\t\(recordPath.fileName)\n").stdout.trimmed
            for name in [recordPath.shards[1], recordPath.shards[0], "records"] {
                tree = try await git("--git-dir", gitDirectory, "mktree", input: "040000 tree \(tree)\t\(name)\n").stdout.trimmed
            }
            return try await git(
                "--git-dir", gitDirectory, "-c", "user.name=T", "-c", "user.email=t@t", "commit-tree", tree, "-p", base,
                "-m", "By hand\n\nModel-Version: 1\nFormat-Version: 1\n"
            ).stdout.trimmed
        }
        try await git("--git-dir", path, "update-ref", "refs/tools/backup", try await commit(other, in: path))
        try await git("--git-dir", path, "update-ref", "refs/heads/cloud", try await commit(cloud, in: path))
        try await git("--git-dir", path, "update-ref", "refs/heads/upper", try await commit(upperCase, id: upperCase.id.hex.uppercased(), in: path))
        // The transfer repository, as an exchange leaves it after refusing a fetch.
        let transfer = path + "/forkstore-transfer"
        try await git("init", "-q", "--bare", transfer)
        try "\(path)/objects\n".write(toFile: transfer + "/objects/info/alternates", atomically: true, encoding: .utf8)
        try await git("--git-dir", transfer, "update-ref", "refs/forkstore/quarantine", try await commit(quarantined, in: transfer))

        clock.advance(7200)
        #expect(try await store.collectAssets() == AssetCollection(removed: 1, bytesFreed: unused.size, kept: 4))
        for asset in [other, cloud, quarantined, upperCase] { #expect(store.isLocal(asset)) }
        #expect(try await store.records(in: try Fork("upper")).first?.file?.id == upperCase.id, "Asset reads the upper-case id")
    }

    /// Nothing is removed on a doubt: a history that cannot be read whole, or a pins file that
    /// is not one, stops the collection before it removes anything.
    @Test func aHistoryThatCannotBeReadRemovesNothing() async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let store = try await RecordStore<Attachment>.create(at: path, options: clock.options)
        let unused = try await store.addAsset(Data("unused".utf8))
        clock.advance(7200)

        try "{\"pins\": 3}\n".write(toFile: path + "/forkstore-pins.json", atomically: true, encoding: .utf8)
        await expectError(.fileSystem) { try await store.collectAssets() }
        #expect(store.isLocal(unused))
        try FileManager.default.removeItem(atPath: path + "/forkstore-pins.json")

        // A ref to a commit whose tree is missing (written by hand, past git's checks).
        let tree = String(repeating: "1", count: 40)
        let commit = try await git(
            "--git-dir", path, "hash-object", "-t", "commit", "-w", "--literally", "--stdin",
            input: "tree \(tree)\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nbroken\n"
        ).stdout.trimmed
        try "\(commit)\n".write(toFile: path + "/refs/heads/broken", atomically: true, encoding: .utf8)
        do {
            _ = try await store.collectAssets()
            Issue.record("a collection went through a history it could not read")
        } catch {}
        #expect(store.isLocal(unused))
        try FileManager.default.removeItem(atPath: path + "/refs/heads/broken")
        #expect(try await store.collectAssets().removed == 1)
    }

    /// What killed adds and collections left in `tmp/` is dealt with: an add's temporary file
    /// goes after the grace period, an object set aside goes back to its place (and is then
    /// judged as any other), an abandoned partial download of an asset nothing needs goes, one
    /// that something needs stays to be resumed, and files of other names stay.
    @Test func leftoversInTheTemporaryFolder() async throws {
        let clock = TestClock(Date())
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let store = try await RecordStore<Attachment>.create(at: path, options: clock.options)
        let needed = Asset(id: try #require(AssetID(String(repeating: "c", count: 64))), size: 10)
        try await store.save(Attachment(id: "a", file: needed))
        let setAside = try await store.addAsset(Data("set aside".utf8))
        let setAsidePath = try await store.localURL(of: setAside).path
        let tmp = path + "/lfs/tmp"
        try FileManager.default.moveItem(atPath: setAsidePath, toPath: "\(tmp)/collect-\(setAside.id.hex)-killed")
        let unusedPartial = String(repeating: "d", count: 64) + ".part"
        for name in ["add-killed", unusedPartial, needed.id.hex + ".part", "someone-elses"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(tmp)/\(name)"))
        }

        #expect(try await store.collectAssets() == AssetCollection(removed: 0, bytesFreed: 0, kept: 1))
        #expect(store.isLocal(setAside), "put back")
        #expect(files(under: tmp) == ["add-killed", unusedPartial, needed.id.hex + ".part", "someone-elses"].sorted())

        clock.advance(7200)
        #expect(try await store.collectAssets() == AssetCollection(removed: 1, bytesFreed: setAside.size, kept: 0))
        #expect(files(under: tmp) == [needed.id.hex + ".part", "someone-elses"])
    }

    /// An add of bytes whose old object a collection is removing at that moment always leaves
    /// the object in place: the add renames a new file over it, which a collection that set the
    /// old one aside finds new and puts back.
    @Test func anAddRacingACollectionKeepsItsObject() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        let bytes = randomBytes(20_000)
        let asset = try await store.addAsset(bytes)
        let path = try await store.localURL(of: asset).path
        for _ in 0..<40 {
            try setModified(path, to: Date().addingTimeInterval(-7200))
            async let added = onOwnThread { try store.addAsset(bytes) }
            async let collected = onOwnThread { try store.engine.collectAssets(gracePeriod: .seconds(600)) }
            _ = try await (added, collected)
            #expect(store.isLocal(asset))
        }
        try await store.verifyAsset(asset)
        #expect(files(under: store.path + "/lfs/tmp").isEmpty)
    }

    @Test func aStoreWithoutAssetsHasNothingToCollect() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        try await store.save(Attachment(id: "a"))
        #expect(try await store.collectAssets() == AssetCollection())
        #expect(!FileManager.default.fileExists(atPath: store.path + "/lfs"))
    }
}
