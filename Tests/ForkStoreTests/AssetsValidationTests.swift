import ForkStore
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// An asset reference written by hand, as a type of the app's own or a peer might write it.
struct RawReference: Codable, Equatable, Sendable {
    var asset: String
    var size: Double
    var name: String?

    enum CodingKeys: String, CodingKey {
        case asset = "$asset"
        case size, name
    }
}

struct RawRecord: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var file: RawReference
}

struct RawValue: Resource {
    static let modelVersion = 1
    var file: RawReference
}

@Suite("Assets: references that arrive, and references written by hand")
struct AssetsValidationTests {
    static let hex = String(repeating: "0123456789abcdef", count: 4)

    /// A malformed reference, and the words of the rule it breaks.
    struct Hostile: Sendable, CustomStringConvertible {
        let name: String
        /// The JSON of the record's `file` member.
        let file: String
        /// Where the malformed reference is, below the member.
        let pointer: String
        let rule: String
        var description: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(name: "upper-case id", file: #"{"$asset":"sha256:\#(hex.uppercased())","size":1}"#, pointer: "", rule: "lowercase"),
        Hostile(name: "id without sha256:", file: #"{"$asset":"\#(hex)","size":1}"#, pointer: "", rule: "lowercase"),
        Hostile(name: "short id", file: #"{"$asset":"sha256:abc","size":1}"#, pointer: "", rule: "64 lowercase"),
        Hostile(name: "negative size", file: #"{"$asset":"sha256:\#(hex)","size":-1}"#, pointer: "", rule: "whole number"),
        Hostile(name: "fractional size", file: #"{"$asset":"sha256:\#(hex)","size":1.5}"#, pointer: "", rule: "whole number"),
        Hostile(name: "size as text", file: #"{"$asset":"sha256:\#(hex)","size":"1"}"#, pointer: "", rule: "wrong type"),
        Hostile(name: "no size", file: #"{"$asset":"sha256:\#(hex)"}"#, pointer: "", rule: "no size"),
        Hostile(name: "over the limit", file: #"{"$asset":"sha256:\#(hex)","size":1001}"#, pointer: "", rule: "over the limit of 1000"),
        Hostile(name: "name with a folder", file: #"{"$asset":"sha256:\#(hex)","name":"../x","size":1}"#, pointer: "", rule: "without folders"),
        Hostile(name: "id as a number", file: #"{"$asset":5,"size":1}"#, pointer: "", rule: "wrong type"),
        Hostile(
            name: "deep in a list", file: #"[{"ok":{"$asset":"sha256:\#(hex)","size":2}},{"x~/":{"$asset":"sha256:\#(hex)","size":-2}}]"#,
            pointer: "/1/x~0~1", rule: "whole number"),
    ]

    /// A bare remote holding the store's history, and a commit crafted on it with git's
    /// plumbing: one record whose `file` member is `file` (or a value whose `image` is).
    static func craft(_ file: String, on store: some VersionedStore, records: Bool, in folder: TemporaryFolder) async throws -> String {
        let remote = folder.child("remote")
        if !FileManager.default.fileExists(atPath: remote) {
            try await git("clone", "--bare", "-q", store.path, remote)
        }
        let text = records
            ? #"{"id":"a","modelVersion":1,"record":{"file":\#(file),"id":"a","title":""}}"# : #"{"image":\#(file),"title":""}"#
        let json = String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
        let blob = try await git("--git-dir", remote, "hash-object", "-w", "--stdin", input: json).stdout.trimmed
        var tree: String
        if records {
            let path = RecordPath(id: "a")
            tree = try await git("--git-dir", remote, "mktree", input: "100644 blob \(blob)\t\(path.fileName)\n").stdout.trimmed
            for name in [path.shards[1], path.shards[0], "records"] {
                tree = try await git("--git-dir", remote, "mktree", input: "040000 tree \(tree)\t\(name)\n").stdout.trimmed
            }
        } else {
            tree = try await git("--git-dir", remote, "mktree", input: "100644 blob \(blob)\tvalue.json\n").stdout.trimmed
        }
        let commit = try await git(
            "--git-dir", remote, "-c", "user.name=Peer", "-c", "user.email=peer@localhost", "commit-tree", tree, "-p", "main",
            "-m", "From a peer\n\nModel-Version: 1\nFormat-Version: 1\n"
        ).stdout.trimmed
        try await git("--git-dir", remote, "update-ref", "refs/heads/main", commit)
        return remote
    }

    /// Fetches the remote's `main` and brings it in, as a sync does.
    static func integrate(_ remote: String, into store: some VersionedStore) async throws -> MergeOutcome {
        try await onOwnThread {
            let engine = store.engine
            guard let head = try engine.fetchRemoteMain(from: remote, localPath: remote, options: RemoteOptions()) else {
                throw StoreError.forkNotFound("main")
            }
            return try engine.integrate(head, resolvingConflicts: nil).merge
        }
    }

    /// Each malformed reference is refused as a rejected commit naming the file, the JSON
    /// Pointer of the reference and the rule, before anything reaches `cloud` or `main`.
    @Test(arguments: hostile, Layout.allCases)
    func aMalformedReferenceFromARemoteIsRefused(_ bad: Hostile, _ layout: Layout) async throws {
        var options = StoreOptions()
        options.maximumAssetSize = 1000
        let folder = TemporaryFolder()
        let store: any VersionedStore = layout == .records
            ? try await RecordStore<Attachment>.create(at: folder.child("store"), options: options)
            : try await Store<Poster>.create(at: folder.child("store"), options: options)
        let before = try await store.head()
        let remote = try await Self.craft(bad.file, on: store, records: layout == .records, in: folder)
        do {
            _ = try await Self.integrate(remote, into: store)
            Issue.record("\(bad.name) was taken")
        } catch let error as StoreError {
            let path = layout == .records ? RecordPath(id: "a").description : "value.json"
            let pointer = (layout == .records ? "/record/file" : "/image") + bad.pointer
            #expect(error.code == .rejectedCommit, "\(error)")
            #expect(error.path == path, "\(error)")
            #expect(error.reason?.contains("asset reference at \(pointer) ") == true, "\(error)")
            #expect(error.reason?.contains(bad.rule) == true, "\(error)")
        }
        #expect(try await store.head() == before)
        #expect(try await store.hasFork(.cloud) == false)
    }

    /// A well-formed reference arrives like any property; its bytes are not here until fetched.
    @Test func aWellFormedReferenceFromARemoteIsTaken() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        let file = #"{"$asset":"sha256:\#(Self.hex)","mediaType":"image/png","name":"a.png","size":1000,"x-later":{"kept":true}}"#
        let remote = try await Self.craft(file, on: store, records: true, in: folder)
        _ = try await Self.integrate(remote, into: store)
        let asset = try #require(try await store.record("a")?.file)
        #expect(asset == Asset(id: try #require(AssetID(Self.hex)), size: 1000, mediaType: "image/png", fileName: "a.png"))
        #expect(!store.isLocal(asset))
        await expectError(.assetNotLocal) { try await store.localURL(of: asset) }
    }

    /// A write whose reference another replica would refuse is refused before anything is
    /// written, in both layouts: a reference over the limit as `assetTooLarge`, any other
    /// malformed one as `encodingFailed`. Well-formed ones written by hand are taken.
    @Test(arguments: Layout.allCases)
    func aMalformedReferenceIsNeverWritten(_ layout: Layout) async throws {
        var options = StoreOptions()
        options.maximumAssetSize = 1000
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let id = "sha256:" + Self.hex
        let write: @Sendable (RawReference) async throws -> Void
        let store: any VersionedStore
        if layout == .records {
            let records = try await RecordStore<RawRecord>.create(at: path, options: options)
            write = { reference in try await records.save(RawRecord(id: "a", file: reference)) }
            store = records
        } else {
            let values = try await Store<RawValue>.create(at: path, options: options)
            write = { reference in try await values.save(RawValue(file: reference)) }
            store = values
        }
        let before = try await store.head()
        await expectError(.encodingFailed) { try await write(RawReference(asset: id, size: -1)) }
        await expectError(.encodingFailed) { try await write(RawReference(asset: id, size: 1.5)) }
        await expectError(.encodingFailed) { try await write(RawReference(asset: id.uppercased(), size: 1)) }
        await expectError(.encodingFailed) { try await write(RawReference(asset: id, size: 1, name: "a/b")) }
        await expectError(.assetTooLarge) { try await write(RawReference(asset: id, size: 1001)) }
        await expectError(.assetTooLarge) { try await write(RawReference(asset: id, size: 1e15)) }
        #expect(try await store.head() == before)
        try await write(RawReference(asset: id, size: 1000, name: "a.txt"))
        #expect(try await store.head() != before)
    }

    /// `Asset` always writes a well-formed reference; one given a file name with a folder is
    /// refused when it is written.
    @Test func anAssetWithAFolderInItsNameIsNotWritten() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        let asset = Asset(id: try #require(AssetID(Self.hex)), size: 1, fileName: "x/y")
        await expectError(.encodingFailed) { try await store.save(Attachment(id: "a", file: asset)) }
        #expect(try await store.count() == 0)
    }
}
