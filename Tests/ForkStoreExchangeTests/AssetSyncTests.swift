import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import ForkStoreLocks
import Testing

/// Assets through a bare repository by path: uploaded into its `lfs/objects` before the
/// commits that reference them are pushed, downloaded lazily (fetchAsset) or by policy,
/// checked by hash on the way in.
@Suite("Asset sync through a path remote")
struct AssetSyncTests {
    @Test func aLaptopsAttachmentReachesThePhoneOnlyWhenFetched() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let (phone, phoneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("phone")
        let bytes = randomBytes(3 << 20 | 12_345, seed: 1)
        let picture = try addTestAsset(to: laptop, bytes: bytes, fileName: "cat.jpg")
        try await laptop.save(AttachmentNote(id: "cat", title: "A cat", file: picture))

        let sent = try await laptopSync.sync()
        #expect(sent.uploadedAssets == 1 && sent.pushedCommits >= 1)
        // Where git-lfs keeps it in a bare repository.
        let hex = picture.id.hex
        let onRemote = lab.remotePath + "/lfs/objects/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"
        #expect(FileManager.default.contents(atPath: onRemote) == Data(bytes))
        #expect(remoteTemporaryFiles(lab).isEmpty)

        let received = try await phoneSync.sync()
        #expect(received.fetchedCommits >= 1 && received.downloadedAssets == 0)
        let note = try #require(try await phone.record("cat"))
        #expect(note.file == picture)
        #expect(!isLocal(picture, in: phone), "a lazy sync downloads nothing")

        let events = phoneSync.events()
        let file = try await phoneSync.fetchAsset(picture)
        #expect(file.path == localPath(of: picture, in: phone))
        #expect(FileManager.default.contents(atPath: file.path) == Data(bytes))
        var progress: [AssetTransferProgress] = []
        for await event in events {
            guard case .assetProgress(let step) = event else { continue }
            progress.append(step)
            if step.bytes == step.totalBytes { break }
        }
        #expect(progress.allSatisfy { $0.direction == .download && $0.asset == picture && $0.totalBytes == bytes.count })
        #expect(progress.map(\.bytes) == progress.map(\.bytes).sorted() && progress.count >= 4)
        #expect(phoneSync.status.pendingTransfers.isEmpty)
        // Present now: no transfer at all.
        #expect(try await phoneSync.fetchAsset(picture) == file)
        // The laptop pushes nothing new, and uploads nothing again.
        let again = try await laptopSync.sync()
        #expect(again.uploadedAssets == 0)
    }

    /// A pin asks for an asset to be kept here for use offline: a lazy sync fetches the pinned
    /// assets it lacks, and only those.
    @Test func aLazySyncFetchesPinnedAssets() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let (phone, phoneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("phone")
        let map = try addTestAsset(to: laptop, bytes: randomBytes(70_000, seed: 41), fileName: "map.png")
        let menu = try addTestAsset(to: laptop, bytes: randomBytes(50_000, seed: 42), fileName: "menu.pdf")
        try await laptop.save(AttachmentNote(id: "map", title: "Map", file: map))
        try await laptop.save(AttachmentNote(id: "menu", title: "Menu", file: menu))
        try await laptopSync.sync()
        try await phoneSync.sync()
        #expect(!isLocal(map, in: phone) && !isLocal(menu, in: phone))

        try await phone.pin(map)
        let report = try await phoneSync.sync()
        #expect(report.downloadedAssets == 1 && report.assetErrors.isEmpty)
        #expect(isLocal(map, in: phone) && !isLocal(menu, in: phone))
        #expect(try await phoneSync.sync().downloadedAssets == 0)
    }

    /// A path remote whose `lfs/objects` is a symbolic link to a folder elsewhere does not get
    /// the upload written there: the push stops first, and the remote's main does not move.
    @Test func aLinkedFolderInThePathRemoteIsNotWrittenThrough() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let elsewhere = lab.folder.child("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: lab.remotePath + "/lfs", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: lab.remotePath + "/lfs/objects", withDestinationPath: elsewhere)
        let before = try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", "-q", "main").stdout
        let asset = try addTestAsset(to: laptop, bytes: randomBytes(40_000, seed: 51))
        try await laptop.save(AttachmentNote(id: "n", title: "n", file: asset))
        await #expect { try await laptopSync.sync() } throws: { error in
            (error as? ExchangeError)?.code == .corruptData && "\(error)".contains("symbolic link")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", "-q", "main").stdout == before)
    }

    /// After every sync of two replicas that add, replace and merge attachments, every commit
    /// on the remote's `main` (read with the git CLI) references only assets in its
    /// `lfs/objects`.
    @Test func theRemoteNeverHoldsACommitWhoseAssetsItLacks() async throws {
        let lab = try await SyncLab()
        let (one, oneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("one")
        let (two, twoSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("two")
        var seed: UInt64 = 10
        func attach(_ id: String, to store: RecordStore<AttachmentNote>) async throws {
            seed += 1
            let asset = try addTestAsset(to: store, bytes: randomBytes(20_000 + Int(seed), seed: seed))
            try await store.save(AttachmentNote(id: id, title: id, file: asset))
        }
        try await attach("a", to: one)
        try await oneSync.sync()
        try await expectEveryRemoteCommitHasItsAssets(lab)
        try await twoSync.sync()
        for round in 0..<3 {
            try await attach("one-\(round)", to: one)
            try await attach("two-\(round)", to: two)
            try await attach("a", to: round % 2 == 0 ? one : two)  // replaced on one side: a merge takes it
            try await oneSync.sync()
            try await expectEveryRemoteCommitHasItsAssets(lab)
            try await twoSync.sync()  // a merge commit, pushed
            try await expectEveryRemoteCommitHasItsAssets(lab)
        }
        try await oneSync.sync()
        #expect(try await one.count() == 7)
        #expect(try await two.count() == 7)
        #expect(try await git("--git-dir", lab.remotePath, "fsck", "--strict").status == 0)
    }

    /// A record referencing bytes that are neither here nor on the remote: the push stops
    /// before the remote's `main` moves, and the error names the asset and the record.
    @Test func anAssetNeitherLocalNorOnTheRemoteStopsThePush() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        try await laptop.save(AttachmentNote(id: "plain", title: "no file", file: nil))
        try await laptopSync.sync()
        let before = try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout

        let nowhere = Asset(id: try #require(AssetID(String(repeating: "ab", count: 32))), size: 1234)
        try await laptop.save(AttachmentNote(id: "ghost", title: "lost", file: nowhere))
        let error = try #require(await expectSync(laptopSync, failsWith: .assetMissing))
        #expect(error.asset == nowhere.id && error.recordID == "ghost" && error.pointer == "/file")
        #expect(error.message.contains(nowhere.id.oid) && error.message.contains("ghost"))
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "main").stdout == before)
        #expect(laptopSync.status.state == .failed && laptopSync.status.pendingTransfers.map(\.asset) == [nowhere])
        #expect(try await laptopSync.pendingAssetTransfers().map(\.asset) == [nowhere])
        #expect(try await laptop.divergence(of: .main, from: .cloud).ahead == 1)
    }

    /// A single-value store's assets move the same way; an error names the place in the value.
    @Test func aValueStoresAssetsMoveTooAndErrorsNameTheirPlace() async throws {
        let lab = try await SyncLab()
        let laptop = try await Store<Profile>.create(at: lab.folder.child("laptop"))
        let laptopSync = Exchange(store: laptop, remote: try Remote(lab.remotePath))
        let avatar = try addTestAsset(to: laptop, bytes: randomBytes(40_000, seed: 12))
        try await laptop.save(Profile(name: "me", pictures: [avatar]))
        #expect(try await laptopSync.sync().uploadedAssets == 1)
        #expect(FileManager.default.fileExists(atPath: remoteObjectPath(lab, avatar)))

        let nowhere = Asset(id: try #require(AssetID(String(repeating: "cd", count: 32))), size: 10)
        try await laptop.save(Profile(name: "me", pictures: [avatar, nowhere]))
        let error = try #require(await expectSync(laptopSync, failsWith: .assetMissing))
        #expect(error.recordID == nil && error.pointer == "/pictures/1" && error.message.contains("the value at /pictures/1"))

        let phone = try await Store<Profile>.create(at: lab.folder.child("phone"))
        let phoneSync = Exchange(store: phone, remote: try Remote(lab.remotePath), options: ExchangeOptions(assetDownloads: .eager))
        #expect(try await phoneSync.sync().downloadedAssets == 1)
        #expect(isLocal(avatar, in: phone))
    }

    @Test func eagerSyncsDownloadWhatMainReferences() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let keep = try addTestAsset(to: laptop, bytes: randomBytes(70_000, seed: 2))
        let skip = try addTestAsset(to: laptop, bytes: randomBytes(80_000, seed: 3))
        try await laptop.save([
            AttachmentNote(id: "keep", title: "wanted", file: keep), AttachmentNote(id: "skip", title: "not wanted", file: skip),
        ])
        try await laptopSync.sync()

        let everything = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("everything"))
        let eager = Exchange(records: everything, remote: try Remote(lab.remotePath), options: ExchangeOptions(assetDownloads: .eager))
        let report = try await eager.sync()
        #expect(report.downloadedAssets == 2 && report.assetErrors.isEmpty)
        #expect(isLocal(keep, in: everything) && isLocal(skip, in: everything))

        let seen = Locked<[ReferencedAsset]>([])
        let some = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("some"))
        let picky = Exchange(
            records: some, remote: try Remote(lab.remotePath),
            options: ExchangeOptions(assetDownloads: .eager(where: { reference in
                seen.withLock { $0.append(reference) }
                return reference.recordID == "keep"
            })))
        #expect(try await picky.sync().downloadedAssets == 1)
        #expect(isLocal(keep, in: some) && !isLocal(skip, in: some))
        #expect(Set(seen.withLock { $0 }) == [
            ReferencedAsset(asset: keep, recordID: "keep", pointer: "/file"),
            ReferencedAsset(asset: skip, recordID: "skip", pointer: "/file"),
        ])
        // Only what changed since is looked at again.
        let more = try addTestAsset(to: laptop, bytes: randomBytes(90_000, seed: 4))
        try await laptop.save(AttachmentNote(id: "keep", title: "replaced", file: more))
        try await laptopSync.sync()
        seen.withLock { $0 = [] }
        #expect(try await picky.sync().downloadedAssets == 1)
        #expect(seen.withLock { $0 } == [ReferencedAsset(asset: more, recordID: "keep", pointer: "/file")])
        #expect(isLocal(more, in: some))
    }

    /// An eager sync whose download fails still exchanges its commits, names the asset in the
    /// report, and brings it with the next sync once the remote has it.
    @Test func aFailedEagerDownloadIsTriedAgainByTheNextSync() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let picture = try addTestAsset(to: laptop, bytes: randomBytes(50_000, seed: 5))
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        try await laptopSync.sync()
        let onRemote = remoteObjectPath(lab, picture)
        let aside = lab.folder.child("aside")
        try FileManager.default.moveItem(atPath: onRemote, toPath: aside)

        let phone = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("phone"))
        let phoneSync = Exchange(records: phone, remote: try Remote(lab.remotePath), options: ExchangeOptions(assetDownloads: .eager))
        let first = try await phoneSync.sync()
        #expect(try await phone.record("p")?.file == picture)
        #expect(first.downloadedAssets == 0 && first.assetErrors.map(\.code) == [.assetMissing])
        #expect(first.assetErrors.first?.recordID == "p" && first.assetErrors.first?.asset == picture.id)
        #expect(phoneSync.status.pendingTransfers.map(\.asset) == [picture])
        #expect(try await phoneSync.pendingAssetTransfers() == [
            AssetTransferProgress(direction: .download, asset: picture, bytes: 0, totalBytes: picture.size)
        ])

        try FileManager.default.moveItem(atPath: aside, toPath: onRemote)
        let second = try await phoneSync.sync()
        #expect(second.downloadedAssets == 1 && second.assetErrors.isEmpty && isLocal(picture, in: phone))
        #expect(phoneSync.status.pendingTransfers.isEmpty)
        #expect(try await phoneSync.pendingAssetTransfers().isEmpty)
    }

    /// Bytes in the remote's folder that do not hash to the id, or have another size, are
    /// refused: nothing appears in the store, not even a partial file.
    @Test(arguments: ["same size", "shorter", "missing"])
    func wrongBytesOnTheRemoteAreRefused(damage: String) async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let (phone, phoneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("phone")
        let bytes = randomBytes(2 << 20, seed: 6)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        try await laptopSync.sync()
        try await phoneSync.sync()
        let onRemote = remoteObjectPath(lab, picture)
        switch damage {
        case "same size":
            var damaged = bytes
            damaged[1_500_000] ^= 0xFF
            try Data(damaged).write(to: URL(fileURLWithPath: onRemote))
        case "shorter": try Data(bytes.dropLast()).write(to: URL(fileURLWithPath: onRemote))
        default: try FileManager.default.removeItem(atPath: onRemote)
        }

        do {
            _ = try await phoneSync.fetchAsset(picture)
            Issue.record("the fetch succeeded")
        } catch {
            #expect(error.code == (damage == "missing" ? .assetMissing : .assetCorrupt), "\(error)")
            #expect(error.asset == picture.id && error.message.contains(picture.id.oid))
            #expect(error.operation == "download")
        }
        #expect(!isLocal(picture, in: phone))
        #expect(!FileManager.default.fileExists(atPath: partialPath(of: picture, in: phone)))
        #expect(phoneSync.status.pendingTransfers.isEmpty)
    }

    /// A damaged partial file from an earlier transfer (bytes a disk lost) is not trusted: the
    /// transfer starts over and the right bytes arrive.
    @Test func aDamagedPartialFileIsStartedOver() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let (phone, phoneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("phone")
        let bytes = randomBytes(3 << 20, seed: 7)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        try await laptopSync.sync()
        try await phoneSync.sync()
        let partial = partialPath(of: picture, in: phone)
        try FileManager.default.createDirectory(atPath: (partial as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 1 << 20).write(to: URL(fileURLWithPath: partial))

        let file = try await phoneSync.fetchAsset(picture)
        #expect(FileManager.default.contents(atPath: file.path) == Data(bytes))
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    /// Several fetches of one asset at once, in two exchanges of the same store: one copies,
    /// the others wait for it and find the file.
    @Test func concurrentFetchesOfOneAssetAgree() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let (phone, phoneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("phone")
        let bytes = randomBytes(4 << 20, seed: 8)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        try await laptopSync.sync()
        try await phoneSync.sync()
        let other = Exchange(records: phone, remote: try Remote(lab.remotePath))
        let files = try await withThrowingTaskGroup(of: URL.self) { group in
            for exchange in [phoneSync, other, phoneSync, other] { group.addTask { try await exchange.fetchAsset(picture) } }
            return try await group.reduce(into: [URL]()) { $0.append($1) }
        }
        #expect(Set(files).count == 1)
        #expect(FileManager.default.contents(atPath: files[0].path) == Data(bytes))
    }

    // MARK: Remotes without a folder

    @Test func theAssetsURLIsDerivedAsGitLFSDerivesIt() throws {
        #expect(try Remote("https://git.example.com/notes.git").assetsURL == "https://git.example.com/notes.git/info/lfs")
        #expect(try Remote("https://git.example.com/notes").assetsURL == "https://git.example.com/notes.git/info/lfs")
        #expect(try Remote("http://git.example.com/notes/").assetsURL == "http://git.example.com/notes.git/info/lfs")
        // The user stays with the remote's credentials, not in the endpoint.
        #expect(try Remote("https://alice@git.example.com/notes.git").assetsURL == "https://git.example.com/notes.git/info/lfs")
        #expect(try Remote("git://git.example.com/notes.git").assetsURL == nil)
        #expect(try Remote("ssh://me@git.example.com/notes.git").assetsURL == nil)
        #expect(try Remote("/srv/notes.git").assetsURL == nil)
        var remote = try Remote("git://git.example.com/notes.git", assetsURL: "https://lfs.example.com/notes")
        #expect(remote.assetsURL == "https://lfs.example.com/notes")
        remote.assetsURL = nil
        #expect(remote.assetsURL == nil)
        #expect { try Remote("git://h/n.git", assetsURL: "https://me:pw@lfs.example.com/n") } throws: { error in
            (error as? ExchangeError)?.code == .invalidRemote && !"\(error)".contains("pw@")
        }
    }

    /// A git:// remote has no place for assets of its own: a sync that must upload one fails
    /// before the push, saying to set `assetsURL`; with `assetsURL` naming the repository's
    /// folder, the assets go there.
    @Test func aGitDaemonRemoteNeedsAnAssetsURL() async throws {
        let lab = try await SyncLab()
        #expect(try await git("--git-dir", lab.remotePath, "config", "daemon.receivepack", "true").status == 0)
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let store = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("laptop"))
        let picture = try addTestAsset(to: store, bytes: randomBytes(10_000, seed: 9))
        try await store.save(AttachmentNote(id: "p", title: "picture", file: picture))

        let bare = Exchange(records: store, remote: try Remote(daemon.url("remote.git")))
        let error = try #require(await expectSync(bare, failsWith: .invalidRemote))
        #expect(error.message.contains("assetsURL"))
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", "-q", "main").status != 0)

        let withFolder = Exchange(records: store, remote: try Remote(daemon.url("remote.git"), assetsURL: lab.remotePath))
        #expect(try await withFolder.sync().uploadedAssets == 1)
        #expect(FileManager.default.fileExists(atPath: remoteObjectPath(lab, picture)))
    }

    /// A record collection without assets syncs with a git:// remote without `assetsURL`.
    @Test func recordsWithoutAssetsNeedNoAssetsURL() async throws {
        let lab = try await SyncLab()
        #expect(try await git("--git-dir", lab.remotePath, "config", "daemon.receivepack", "true").status == 0)
        let daemon = try await GitDaemon(basePath: lab.folder.path)
        let store = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("laptop"))
        try await store.save(AttachmentNote(id: "p", title: "no picture", file: nil))
        #expect(try await Exchange(records: store, remote: try Remote(daemon.url("remote.git"))).sync().uploadedAssets == 0)
    }
}

// MARK: Helpers

/// A single value holding assets in an array.
struct Profile: Resource, Equatable {
    static let modelVersion = 1
    var name: String
    var pictures: [Asset]
}

/// `count` pseudo-random bytes from `seed`.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix(state: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
}

/// Where the lab's bare remote keeps an asset, as git-lfs lays it out.
func remoteObjectPath(_ lab: SyncLab, _ asset: Asset) -> String {
    let hex = asset.id.hex
    return lab.remotePath + "/lfs/objects/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"
}

/// Files left in the remote's `lfs/tmp`.
func remoteTemporaryFiles(_ lab: SyncLab) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: lab.remotePath + "/lfs/tmp")) ?? []
}

/// Reads every commit of the remote's `main` with the git CLI and checks that each asset its
/// blobs reference is in the remote's `lfs/objects`.
func expectEveryRemoteCommitHasItsAssets(_ lab: SyncLab, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let commits = try await git("--git-dir", lab.remotePath, "rev-list", "main").stdout.split(separator: "\n").map(String.init)
    #expect(!commits.isEmpty, sourceLocation: sourceLocation)
    var checked = 0
    for commit in commits {
        let found = try await git("--git-dir", lab.remotePath, "grep", "-h", "-o", "-E", "sha256:[0-9a-f]{64}", commit)
        for line in found.stdout.split(separator: "\n") {
            let hex = String(line.dropFirst("sha256:".count))
            let path = lab.remotePath + "/lfs/objects/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"
            #expect(FileManager.default.fileExists(atPath: path), "commit \(commit) references \(hex), which the remote lacks",
                sourceLocation: sourceLocation)
            checked += 1
        }
    }
    #expect(checked > 0, sourceLocation: sourceLocation)
}
