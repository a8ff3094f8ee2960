import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Stock `git lfs` (Debian's git-lfs, installed by scripts/setup.sh --test-servers) and
/// ForkStore share a path remote's `lfs/objects`: each reads what the other put there. git-lfs
/// runs with a home of its own, so the machine's git configuration is never touched.
@Suite("Asset sync with stock git lfs")
struct AssetSyncGitLFSTests {
    /// ForkStore uploads; a clone with git-lfs fetches the object by a pointer file naming its
    /// oid and size, checks it out, and `git lfs fsck` finds it sound.
    @Test func gitLFSFetchesWhatForkStoreUploaded() async throws {
        let lab = try await SyncLab()
        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        let bytes = randomBytes(2 << 20 | 777, seed: 21)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        try await laptopSync.sync()

        let lfs = try await GitLFSClone(of: lab)
        try await lfs.commitPointer(named: "picture.bin", to: picture)
        try await lfs.run("lfs", "fetch", "origin", "HEAD")
        #expect(FileManager.default.contents(atPath: lfs.objectPath(of: picture.id)) == Data(bytes))
        try await lfs.run("lfs", "checkout", "picture.bin")
        #expect(FileManager.default.contents(atPath: lfs.folder + "/picture.bin") == Data(bytes))
        #expect(try await lfs.run("lfs", "fsck").stdout.contains("OK"))
    }

    /// git-lfs pushes an object to the path remote; a record references it by oid and size
    /// from a replica that never had the bytes (the push finds them on the remote), and
    /// another replica fetches them with PathAssetTransport.
    @Test func forkStoreFetchesWhatGitLFSPushed() async throws {
        let lab = try await SyncLab()
        let lfs = try await GitLFSClone(of: lab)
        let bytes = randomBytes(3 << 20 | 5, seed: 22)
        try Data(bytes).write(to: URL(fileURLWithPath: lfs.folder + "/movie.bin"))
        try await lfs.run("lfs", "track", "*.bin")
        try await lfs.run("add", ".gitattributes", "movie.bin")
        try await lfs.run("commit", "-q", "-m", "A movie")
        // Another branch: the remote's main is the store's.
        try await lfs.run("push", "-q", "origin", "HEAD:refs/heads/git-lfs-side")
        let listed = try await lfs.run("lfs", "ls-files", "-l").stdout
        let oid = try #require(AssetID(String(listed.prefix(64))))
        let movie = Asset(id: oid, size: bytes.count, mediaType: "video/mp4", fileName: "movie.bin")
        #expect(FileManager.default.fileExists(atPath: remoteObjectPath(lab, movie)))

        let (laptop, laptopSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("laptop")
        try await laptop.save(AttachmentNote(id: "m", title: "movie", file: movie))
        let pushed = try await laptopSync.sync()
        #expect(pushed.pushedCommits >= 1 && pushed.uploadedAssets == 0)
        #expect(!isLocal(movie, in: laptop))

        let (phone, phoneSync): (RecordStore<AttachmentNote>, Exchange) = try lab.recordReplica("phone")
        try await phoneSync.sync()
        #expect(try await phone.record("m")?.file == movie)
        let file = try await phoneSync.fetchAsset(movie)
        #expect(FileManager.default.contents(atPath: file.path) == Data(bytes))
    }
}

/// A clone of a lab's remote with git-lfs set up in it, run with a home folder of its own.
struct GitLFSClone {
    let folder: String
    let environment: [String: String]

    init(of lab: SyncLab) async throws {
        let home = lab.folder.child("git-lfs-home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        folder = lab.folder.child("git-lfs-clone")
        environment = ["HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": home]
        let version = try await git(["lfs", "version"], environment: environment)
        try #require(version.status == 0, "git-lfs is not installed: run scripts/setup.sh --test-servers")
        let cloned = try await git(["clone", "-q", "file://" + lab.remotePath, folder], environment: environment)
        try #require(cloned.status == 0, "\(cloned.stderr)")
        try await run("checkout", "-q", "-B", "scratch")
        try await run("lfs", "install", "--local")
    }

    /// Runs git in the clone; fails the test when git does.
    @discardableResult
    func run(_ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
        let result = try await git(["-C", folder] + arguments, environment: environment)
        #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// Commits a Git LFS pointer file naming the asset's oid and size, as git-lfs writes one.
    func commitPointer(named name: String, to asset: Asset) async throws {
        try "*.bin filter=lfs diff=lfs merge=lfs -text\n".write(toFile: folder + "/.gitattributes", atomically: true, encoding: .utf8)
        let pointer = "version https://git-lfs.github.com/spec/v1\noid \(asset.id.oid)\nsize \(asset.size)\n"
        try pointer.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        try await run("add", ".gitattributes", name)
        try await run("commit", "-q", "-m", "Point at \(asset.id.hex.prefix(10))")
    }

    /// Where git-lfs keeps the object in the clone.
    func objectPath(of id: AssetID) -> String {
        folder + "/.git/lfs/objects/\(id.hex.prefix(2))/\(id.hex.dropFirst(2).prefix(2))/\(id.hex)"
    }
}
