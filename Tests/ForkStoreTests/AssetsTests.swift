import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// A record holding an attachment.
struct Attachment: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String = ""
    var file: Asset?
}

/// A value holding a picture.
struct Poster: Resource, Equatable {
    static let modelVersion = 1
    var title: String = ""
    var image: Asset?
}

/// Bytes that differ from run to run and from call to call.
func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    var bytes = [UInt8](repeating: 0, count: count)
    for index in stride(from: 0, to: count, by: 8) {
        let word = generator.next() as UInt64
        for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: word >> (offset * 8)) }
    }
    return Data(bytes)
}

/// The files under a folder (relative paths), or none when it is missing.
func files(under folder: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder)
    var found: [String] = []
    while let name = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
            found.append(name)
        }
    }
    return found.sorted()
}

/// Expects `body` to throw a ``StoreError`` with `code`.
func expectError<Result>(
    _ code: StoreError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Result
) async {
    do {
        _ = try await body()
        Issue.record("nothing was thrown; expected \(code.rawValue)", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? StoreError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Assets: adding and reading")
struct AssetsTests {
    /// The id is the SHA-256 that `sha256sum`, `openssl dgst` and `git lfs pointer` give the
    /// same bytes; the object is where git-lfs puts it; the file reads back byte for byte.
    @Test func aFileIsAddedUnderTheHashOtherToolsGiveIt() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        let source = folder.child("Holiday Photo.JPG")
        let bytes = randomBytes(3 * (1 << 20) + 12345)  // a few megabyte chunks and a part of one
        try bytes.write(to: URL(fileURLWithPath: source))

        let asset = try await store.addAsset(contentsOf: URL(fileURLWithPath: source))
        let sha256sum = try await run("/usr/bin/env", ["sha256sum", source]).stdout.split(separator: " ").first.map(String.init)
        let openssl = try await run("/usr/bin/env", ["openssl", "dgst", "-sha256", "-r", source]).stdout.split(separator: " ").first.map(String.init)
        #expect(asset.id.hex == sha256sum)
        #expect(asset.id.hex == openssl)
        let pointer = try await run("/usr/bin/env", ["git", "lfs", "pointer", "--file=\(source)"])
        let lines = (pointer.stdout + pointer.stderr).split(separator: "\n")
        #expect(lines.contains("oid \(asset.id.oid)"), "\(pointer)")
        #expect(lines.contains("size \(bytes.count)"), "\(pointer)")
        #expect(asset.size == bytes.count)
        #expect(asset.mediaType == "image/jpeg")
        #expect(asset.fileName == "Holiday Photo.JPG")

        let url = try await store.localURL(of: asset)
        #expect(url.path == "\(store.path)/lfs/objects/\(asset.id.hex.prefix(2))/\(asset.id.hex.dropFirst(2).prefix(2))/\(asset.id.hex)")
        #expect(try Data(contentsOf: url) == bytes)
        #expect(store.isLocal(asset))
        #expect(files(under: store.path + "/lfs/tmp").isEmpty)
        try await store.verifyAsset(asset)
    }

    /// git-lfs stores the same bytes at the same path below its `lfs/` folder, and reads what
    /// ForkStore wrote: `git lfs smudge` with the store's folder as its storage gives the bytes
    /// back, and what `git lfs clean` writes there is an asset the store reads.
    @Test func gitLFSLaysOutAndReadsTheFolderAsForkStoreDoes() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        let bytes = randomBytes(100_000)
        let asset = try await store.addAsset(bytes, mediaType: "application/octet-stream", fileName: "blob.bin")

        let work = folder.child("work")
        try await git("init", "-q", work)
        let storage = "lfs.storage=\(store.path)/lfs"
        let pointer = "version https://git-lfs.github.com/spec/v1\noid \(asset.id.oid)\nsize \(asset.size)\n"
        let smudged = try await run("/bin/sh", ["-c", "cd '\(work)' && git -c '\(storage)' lfs smudge | sha256sum"], input: pointer)
        #expect(smudged.stdout.hasPrefix(asset.id.hex), "\(smudged)")

        let other = randomBytes(5000)
        let file = folder.child("other.bin")
        try other.write(to: URL(fileURLWithPath: file))
        let cleaned = try await run("/bin/sh", ["-c", "cd '\(work)' && git -c '\(storage)' lfs clean < '\(file)'"])
        #expect(cleaned.status == 0, "\(cleaned)")
        let oid = cleaned.stdout.split(separator: "\n").first { $0.hasPrefix("oid ") }.flatMap { AssetID(String($0.dropFirst(4))) }
        let fromLFS = Asset(id: try #require(oid), size: other.count)
        #expect(store.isLocal(fromLFS))
        try await store.verifyAsset(fromLFS)
        #expect(try Data(contentsOf: await store.localURL(of: fromLFS)) == other)
    }

    @Test func bytesAndPiecesGiveTheSameAssetAsAFileAndOneCopy() async throws {
        let folder = TemporaryFolder()
        let store = try await Store<Poster>.create(at: folder.child("store"))
        let bytes = randomBytes(2 * (1 << 20) + 7)
        let path = folder.child("poster.png")
        try bytes.write(to: URL(fileURLWithPath: path))

        let fromFile = try await store.addAsset(contentsOf: URL(fileURLWithPath: path), fileName: "cover.png")
        let fromBytes = try await store.addAsset(bytes, mediaType: "image/png", fileName: "cover.png")
        let fromPieces = try await store.addAsset(mediaType: "image/png", fileName: "cover.png") { writer in
            var offset = 0
            var piece = 1
            while offset < bytes.count {  // pieces of 1, 2, 4, … bytes, up to a megabyte, then the rest
                let end = min(bytes.count, offset + piece)
                try writer.write(bytes[offset..<end])
                offset = end
                piece = min(piece * 2, 1 << 20)
            }
            #expect(writer.count == bytes.count)
        }
        #expect(fromFile == fromBytes)
        #expect(fromBytes == fromPieces)
        #expect(fromFile.mediaType == "image/png")
        #expect(files(under: store.path + "/lfs/objects") == [
            "\(fromFile.id.hex.prefix(2))/\(fromFile.id.hex.dropFirst(2).prefix(2))/\(fromFile.id.hex)"
        ])
        #expect(files(under: store.path + "/lfs/tmp").isEmpty)

        let empty = try await store.addAsset(Data())
        #expect(empty.id.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(empty.size == 0 && empty.mediaType == Asset.unknownMediaType && empty.fileName == nil)
        #expect(try Data(contentsOf: await store.localURL(of: empty)).isEmpty)
    }

    /// Nothing of an asset appears until it is whole: a writer that throws half-way, and bytes
    /// over the limit, leave no object and no temporary file.
    @Test func aFailedAddLeavesNothing() async throws {
        var options = StoreOptions()
        options.maximumAssetSize = 1000
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"), options: options)
        struct Stop: Error {}

        await #expect(throws: Stop.self) {
            try await store.addAsset { writer in
                try writer.write(Data(repeating: 1, count: 600))
                #expect(!files(under: store.path + "/lfs/tmp").isEmpty, "the bytes so far are in a temporary file")
                throw Stop()
            }
        }
        await expectError(.assetTooLarge) {
            try await store.addAsset { writer in
                try writer.write(Data(repeating: 1, count: 600))
                try writer.write(Data(repeating: 2, count: 600))
            }
        }
        // A write refused stays refused: the file and the hash would disagree.
        await expectError(.assetTooLarge) {
            try await store.addAsset { writer in
                try writer.write(Data(repeating: 1, count: 1001))
            }
        }
        let tooLarge = folder.child("large.bin")
        try Data(repeating: 3, count: 1001).write(to: URL(fileURLWithPath: tooLarge))
        do {
            _ = try await store.addAsset(contentsOf: URL(fileURLWithPath: tooLarge))
            Issue.record("a file over the limit was added")
        } catch let error as StoreError {
            #expect(error.code == .assetTooLarge && error.limit == 1000, "\(error)")
        }
        await expectError(.assetTooLarge) { try await store.addAsset(Data(repeating: 4, count: 1001)) }
        await expectError(.fileSystem) { try await store.addAsset(contentsOf: URL(fileURLWithPath: folder.child("missing"))) }
        await expectError(.encodingFailed) { try await store.addAsset(Data([1]), fileName: "a/b.txt") }

        #expect(files(under: store.path + "/lfs/objects").isEmpty)
        #expect(files(under: store.path + "/lfs/tmp").isEmpty)
        let atLimit = try await store.addAsset(Data(repeating: 5, count: 1000))
        #expect(store.isLocal(atLimit))
    }

    /// A damaged object is found: by its size when its file is opened, by its hash when it is
    /// verified (and then removed, so that a fetch can bring it again).
    @Test func aDamagedObjectIsFound() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Attachment>.create(at: folder.child("store"))
        let asset = try await store.addAsset(randomBytes(10_000), fileName: "a.bin")
        let path = try await store.localURL(of: asset).path

        var damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        damaged[5000] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(store.isLocal(asset), "the size alone cannot tell")
        do {
            try await store.verifyAsset(asset)
            Issue.record("damaged bytes passed")
        } catch let error as StoreError {
            #expect(error.code == .assetCorrupt && error.object == asset.id.oid, "\(error)")
        }
        #expect(!store.isLocal(asset))
        await expectError(.assetNotLocal) { try await store.localURL(of: asset) }
        await expectError(.assetNotLocal) { try await store.verifyAsset(asset) }

        // Adding the bytes again brings it back; a file cut short is told by its size.
        damaged[5000] ^= 0xFF
        #expect(try await store.addAsset(damaged, fileName: "a.bin") == asset)
        try await store.verifyAsset(asset)
        try Data(repeating: 0, count: 10).write(to: URL(fileURLWithPath: path))
        #expect(!store.isLocal(asset))
        await expectError(.assetCorrupt) { try await store.localURL(of: asset) }
    }

    /// An asset is a property like any other in both layouts; its reference is the JSON that
    /// FORMAT.md gives, readable with `git show`.
    @Test(arguments: Layout.allCases)
    func aReferenceIsStoredAsJSONInBothLayouts(_ layout: Layout) async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let bytes = randomBytes(4321)
        let shown: String
        let asset: Asset
        switch layout {
        case .value:
            let store = try await Store<Poster>.create(at: path)
            asset = try await store.addAsset(bytes, mediaType: "image/webp", fileName: "poster.webp")
            try await store.save(Poster(title: "Film", image: asset))
            #expect(try await store.value()?.image == asset)
            shown = try await git("--git-dir", path, "show", "main:value.json").stdout
        case .records:
            let store = try await RecordStore<Attachment>.create(at: path)
            asset = try await store.addAsset(bytes, mediaType: "image/webp", fileName: "poster.webp")
            try await store.save(Attachment(id: "a", title: "Film", file: asset))
            #expect(try await store.record("a")?.file == asset)
            shown = try await git("--git-dir", path, "show", "main:" + RecordPath(id: "a").description).stdout
        }
        let lines = shown.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
        #expect(lines.contains("""
            "$asset": "\(asset.id.oid)",
            "mediaType": "image/webp",
            "name": "poster.webp",
            "size": 4321
            """), "\(shown)")
        try await expectFsckClean(path)
    }

    @Test func anInMemoryStoreKeepsAssetsInItsOwnFolder() async throws {
        // The blocking calls, on a thread of the test's own: the store is released when the
        // closure returns (an async twin's thread may hold it a moment longer).
        let path = try await onOwnThread { () throws -> String in
            let store = try RecordStore<Attachment>.inMemory()
            let asset = try store.addAsset(Data("hello".utf8), mediaType: "text/plain")
            let path = try store.localURL(of: asset).path
            #expect(path.hasPrefix(store.path + "/lfs/objects/"))
            #expect(FileManager.default.fileExists(atPath: path))
            return path
        }
        #expect(!path.isEmpty && !FileManager.default.fileExists(atPath: path))
    }

    /// A process that may not write the store reads its assets and pins, and every change
    /// (adding, pinning, unpinning, collecting) is refused as `readOnlyStore`, writing nothing.
    @Test(.enabled(if: ReadOnlyUser.isAvailable))
    func aReadOnlyStoreReadsAssetsAndRefusesChanges() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        do {
            let store = try await RecordStore<Attachment>.create(at: path)
            let asset = try await store.addAsset(randomBytes(3000), fileName: "a.bin")
            try await store.save(Attachment(id: "a", file: asset))
            try await store.pin(asset)
        }
        try ReadOnlyUser.makeReadOnly(path)
        defer { try? ReadOnlyUser.makeWritable(path) }
        let before = Set(FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])

        let (executable, arguments) = ReadOnlyUser.command(productsFolder() + "/forkstore-stress-writer", ["assets", path])
        let result = try await run(executable, arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n") == [
            "done pinned 1", "done local 1", "done refused", "done refused", "done refused", "done refused",
        ], "\(result.stdout)\(result.stderr)")
        #expect(Set(FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []) == before)
    }

    @Test func mediaTypesAreGuessedFromTheExtension() {
        #expect(Asset.mediaType(forFileExtension: "PNG") == "image/png")
        #expect(Asset.mediaType(forFileExtension: ".jpeg") == "image/jpeg")
        #expect(Asset.mediaType(forFileExtension: "heic") == "image/heic")
        #expect(Asset.mediaType(forFileExtension: "pdf") == "application/pdf")
        #expect(Asset.mediaType(forFileExtension: "mov") == "video/quicktime")
        #expect(Asset.mediaType(forFileExtension: "m4a") == "audio/mp4")
        #expect(Asset.mediaType(forFileExtension: "zip") == "application/zip")
        #expect(Asset.mediaType(forFileExtension: "") == Asset.unknownMediaType)
        #expect(Asset.mediaType(forFileExtension: "xyz") == Asset.unknownMediaType)
    }

    /// Pins are kept in `forkstore-pins.json`, canonical JSON written whole, and survive
    /// reopening; an asset need not be here to be pinned (a sync then brings it).
    @Test func pinsPersistAcrossReopening() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("store")
        let pinsFile = path + "/forkstore-pins.json"
        let here: Asset, elsewhere: Asset
        do {
            let store = try await RecordStore<Attachment>.create(at: path)
            #expect(try await store.pinnedAssets().isEmpty)
            here = try await store.addAsset(Data("pinned".utf8), mediaType: "text/plain", fileName: "p.txt")
            elsewhere = Asset(id: try #require(AssetID(String(repeating: "ab", count: 32))), size: 12)
            try await store.pin(here)
            try await store.pin(elsewhere)
            try await store.pin(here)  // twice is once
            #expect(try await store.pinnedAssets() == [here, elsewhere].sorted { $0.id < $1.id })
        }
        let text = try String(contentsOfFile: pinsFile, encoding: .utf8)
        #expect(try CanonicalJSON.canonicalize(Array(text.utf8)) == Array(text.utf8), "canonical: \(text)")
        #expect(text.contains("\"$asset\": \"\(here.id.oid)\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.contains("pins") } == ["forkstore-pins.json"])

        let reopened = try await RecordStore<Attachment>.open(at: path)
        #expect(try await reopened.pinnedAssets() == [here, elsewhere].sorted { $0.id < $1.id })
        try await reopened.unpin(elsewhere)
        try await reopened.unpin(elsewhere)
        #expect(try await reopened.pinnedAssets() == [here])
        try await reopened.unpin(here)
        #expect(try await reopened.pinnedAssets().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: pinsFile))

        // A file that is not a pins list is refused, never guessed at.
        try Data("{\"pins\": [{\"$asset\": \"sha256:XYZ\", \"size\": 1}]}".utf8).write(to: URL(fileURLWithPath: pinsFile))
        await expectError(.fileSystem) { try await reopened.pinnedAssets() }
    }
}
