import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Replicas exchanging records that hold assets through a git remote whose assets live on a
/// real Git LFS server (giftless, `Remote.assetsURL`): uploaded before the push, fetched
/// lazily or by policy, with basic authentication, over https, and with the server's objects
/// lost or damaged.
@Suite("Asset sync through a Git LFS server")
struct AssetLFSSyncTests {
    /// A lab's bare remote with a giftless beside it for the assets.
    struct LFSSyncLab {
        let lab: SyncLab
        let server: GiftlessServer

        init(authenticated: Bool = false, tls: Bool = false) async throws {
            lab = try await SyncLab()
            server = try await GiftlessServer(folder: lab.folder.child("giftless"), authenticated: authenticated, tls: tls)
        }

        /// A record collection syncing with the bare remote, its assets going to `assetsURL`
        /// (giftless's http endpoint by default).
        func replica(
            _ name: String, assetsURL: String? = nil, credentials: Credentials? = nil, trust: ServerTrust = .verify,
            options: ExchangeOptions = ExchangeOptions()
        ) throws -> (RecordStore<AttachmentNote>, Exchange) {
            let path = lab.folder.child(name)
            let store = FileManager.default.fileExists(atPath: path)
                ? try RecordStore<AttachmentNote>.open(at: path) : try RecordStore<AttachmentNote>.create(at: path)
            let remote = try Remote(
                lab.remotePath, credentials: credentials, trust: trust, assetsURL: assetsURL ?? server.endpoint())
            return (store, Exchange(records: store, remote: remote, options: options))
        }

        /// Where giftless keeps an asset.
        func stored(_ asset: Asset) -> String { server.storedPath(asset.id.hex) }

        /// The asset ids the remote's `main` references, read with the git CLI.
        func referencedOnMain() async throws -> Set<String> {
            let found = try await git("--git-dir", lab.remotePath, "grep", "-h", "-o", "-E", "sha256:[0-9a-f]{64}", "main")
            return Set(found.stdout.split(separator: "\n").map { String($0.dropFirst("sha256:".count)) })
        }
    }

    /// The laptop uploads to giftless and pushes; the phone's lazy sync brings the record and
    /// not the bytes, `fetchAsset` brings them; nothing goes to the bare remote's own
    /// `lfs/objects`.
    @Test func aLaptopsAttachmentReachesThePhoneThroughGiftless() async throws {
        let lfs = try await LFSSyncLab()
        let (laptop, laptopSync) = try lfs.replica("laptop")
        let (phone, phoneSync) = try lfs.replica("phone")
        let bytes = randomBytes(3 << 20 | 4_321, seed: 51)
        let picture = try addTestAsset(to: laptop, bytes: bytes, fileName: "cat.jpg")
        try await laptop.save(AttachmentNote(id: "cat", title: "A cat", file: picture))

        let sent = try await laptopSync.sync()
        #expect(sent.uploadedAssets == 1 && sent.pushedCommits >= 1)
        #expect(try await lfs.referencedOnMain() == [picture.id.hex])
        #expect(FileManager.default.contents(atPath: lfs.stored(picture)) == Data(bytes))
        #expect(!FileManager.default.fileExists(atPath: remoteObjectPath(lfs.lab, picture)))

        let received = try await phoneSync.sync()
        #expect(received.fetchedCommits >= 1 && received.downloadedAssets == 0)
        #expect(try await phone.record("cat")?.file == picture)
        #expect(!isLocal(picture, in: phone), "a lazy sync downloads nothing")
        let file = try await phoneSync.fetchAsset(picture)
        #expect(file.path == localPath(of: picture, in: phone))
        #expect(FileManager.default.contents(atPath: file.path) == Data(bytes))
        #expect(phoneSync.status.pendingTransfers.isEmpty)

        // Nothing moves again: the laptop knows the server has it, the phone has it.
        #expect(try await laptopSync.sync().uploadedAssets == 0)
        #expect(try await phoneSync.fetchAsset(picture) == file)
    }

    /// The remote (smart HTTP: git http-backend behind lighttpd) runs a `pre-receive` hook
    /// that refuses any push naming an asset giftless's storage lacks, and logs what it saw:
    /// every push of three rounds (adds, replacements, a merge) finds its assets there.
    @Test func everyPushFindsItsAssetsOnTheServerAlready() async throws {
        let lfs = try await LFSSyncLab()
        let lab = lfs.lab
        try await git("--git-dir", lab.remotePath, "config", "http.receivepack", "true")
        let log = lab.folder.child("pre-receive.log")
        let hook = lab.remotePath + "/hooks/pre-receive"
        let storage = (lfs.server.storedPath("x") as NSString).deletingLastPathComponent
        try """
            #!/bin/sh
            # Refuses a push naming an asset that is not in giftless's storage yet.
            while read old new ref; do
              for hex in $(git grep -h -o -E 'sha256:[0-9a-f]{64}' "$new" | sed 's/^sha256://' | sort -u); do
                if [ -f "\(storage)/$hex" ]; then echo "present $hex" >>"\(log)"; else echo "absent $hex" >>"\(log)"; exit 1; fi
              done
            done

            """.write(toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        let http = try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("http"))
        func replica(_ name: String) throws -> (RecordStore<AttachmentNote>, Exchange) {
            let store = try RecordStore<AttachmentNote>.create(at: lab.folder.child(name))
            return (store, Exchange(records: store, remote: try Remote(http.url("remote.git"), assetsURL: lfs.server.endpoint())))
        }
        let (one, oneSync) = try replica("one")
        let (two, twoSync) = try replica("two")
        var added: Set<String> = []
        var seed: UInt64 = 60
        func attach(_ id: String, to store: RecordStore<AttachmentNote>) async throws {
            seed += 1
            let asset = try addTestAsset(to: store, bytes: randomBytes(30_000 + Int(seed), seed: seed))
            added.insert(asset.id.hex)
            try await store.save(AttachmentNote(id: id, title: id, file: asset))
        }
        try await attach("a", to: one)
        try await oneSync.sync()
        try await twoSync.sync()
        for round in 0..<3 {
            try await attach("one-\(round)", to: one)
            try await attach("two-\(round)", to: two)
            try await attach("a", to: round % 2 == 0 ? one : two)
            try await oneSync.sync()
            try await twoSync.sync()  // a merge, pushed
        }
        try await oneSync.sync()
        #expect(try await one.count() == 7)
        #expect(try await two.count() == 7)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("present ") })
        #expect(Set(lines.map { String($0.dropFirst("present ".count)) }) == added)
        for hex in added { #expect(FileManager.default.fileExists(atPath: lfs.server.storedPath(hex))) }
    }

    /// An eager replica downloads what `main` references from giftless during its sync.
    @Test func anEagerSyncDownloadsFromGiftless() async throws {
        let lfs = try await LFSSyncLab()
        let (laptop, laptopSync) = try lfs.replica("laptop")
        let first = randomBytes(200_000, seed: 52), second = randomBytes(1 << 20, seed: 53)
        let assets = [try addTestAsset(to: laptop, bytes: first), try addTestAsset(to: laptop, bytes: second)]
        try await laptop.save([
            AttachmentNote(id: "one", title: "one", file: assets[0]), AttachmentNote(id: "two", title: "two", file: assets[1]),
        ])
        #expect(try await laptopSync.sync().uploadedAssets == 2)

        let (phone, phoneSync) = try lfs.replica("phone", options: ExchangeOptions(assetDownloads: .eager))
        let report = try await phoneSync.sync()
        #expect(report.downloadedAssets == 2 && report.assetErrors.isEmpty)
        #expect(FileManager.default.contents(atPath: localPath(of: assets[0], in: phone)) == Data(first))
        #expect(FileManager.default.contents(atPath: localPath(of: assets[1], in: phone)) == Data(second))
        #expect(try await phoneSync.sync().downloadedAssets == 0)
    }

    /// An eager sync of thirty assets, two of them gone from the server: the other
    /// twenty-eight arrive in one transfer, and each missing one is reported with its record;
    /// once the server has them again, the next sync brings just those two.
    @Test func anEagerSyncOfManyReportsEachMissingAssetWithItsRecord() async throws {
        let lfs = try await LFSSyncLab()
        let (laptop, laptopSync) = try lfs.replica("laptop")
        var notes: [AttachmentNote] = []
        for index in 0..<30 {
            let asset = try addTestAsset(to: laptop, bytes: randomBytes(20_000 + index * 1_000, seed: 700 + UInt64(index)))
            notes.append(AttachmentNote(id: "note-\(index)", title: "note \(index)", file: asset))
        }
        try await laptop.save(notes)
        #expect(try await laptopSync.sync().uploadedAssets == 30)
        let gone = [notes[7], notes[21]]
        let aside = lfs.lab.folder.child("aside")
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        for note in gone {
            let asset = try #require(note.file)
            try FileManager.default.moveItem(atPath: lfs.stored(asset), toPath: aside + "/" + asset.id.hex)
        }

        let (phone, phoneSync) = try lfs.replica("phone", options: ExchangeOptions(assetDownloads: .eager))
        let report = try await phoneSync.sync()
        #expect(report.downloadedAssets == 28)
        #expect(report.assetErrors.map(\.code) == [.assetMissing, .assetMissing])
        #expect(Set(report.assetErrors.compactMap(\.recordID)) == ["note-7", "note-21"])
        for note in notes {
            let asset = try #require(note.file)
            #expect(isLocal(asset, in: phone) == !gone.contains(note))
        }
        #expect(Set(phoneSync.status.pendingTransfers.map(\.asset)) == Set(gone.compactMap(\.file)))

        for note in gone {
            let asset = try #require(note.file)
            try FileManager.default.moveItem(atPath: aside + "/" + asset.id.hex, toPath: lfs.stored(asset))
        }
        let again = try await phoneSync.sync()
        #expect(again.downloadedAssets == 2 && again.assetErrors.isEmpty)
        #expect(phoneSync.status.pendingTransfers.isEmpty)
    }

    /// lighttpd with basic authentication in front of giftless: the remote's credentials sign
    /// in; a wrong password or none fails as `authenticationFailed`, and no error's text holds
    /// the password.
    @Test func basicAuthenticationWithTheRightAndTheWrongPassword() async throws {
        let lfs = try await LFSSyncLab(authenticated: true)
        let right = Credentials.userPassword(username: GiftlessServer.username, password: GiftlessServer.password)
        let (laptop, laptopSync) = try lfs.replica("laptop", credentials: right)
        let bytes = randomBytes(500_000, seed: 54)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "private", file: picture))
        #expect(try await laptopSync.sync().uploadedAssets == 1)
        #expect(FileManager.default.contents(atPath: lfs.stored(picture)) == Data(bytes))

        let wrong = "not-the-LFS-password-4417"
        let wrongCredentials = Credentials.userPassword(username: GiftlessServer.username, password: wrong)
        // An upload with the wrong password: refused before the push.
        let (other, otherSync) = try lfs.replica("other", credentials: wrongCredentials)
        try await other.save(AttachmentNote(id: "q", title: "more", file: try addTestAsset(to: other, bytes: randomBytes(9_000, seed: 55))))
        let before = try await lfs.referencedOnMain()
        let refused = try #require(await expectSync(otherSync, failsWith: .authenticationFailed))
        expectNoSecret(wrong, in: refused)
        #expect(try await lfs.referencedOnMain() == before)

        // A download with the wrong password, and with none.
        let (_, phoneSync) = try lfs.replica("phone", credentials: wrongCredentials)
        try await phoneSync.sync()
        let error = await fetchFailure(phoneSync, picture)
        #expect(error?.code == .authenticationFailed, "\(String(describing: error))")
        if let error { expectNoSecret(wrong, in: error) }
        let (_, anonymousSync) = try lfs.replica("anonymous")
        try await anonymousSync.sync()
        #expect(await fetchFailure(anonymousSync, picture)?.code == .authenticationFailed)

        let (phone, goodSync) = try lfs.replica("phone", credentials: right)
        #expect(FileManager.default.contents(atPath: try await goodSync.fetchAsset(picture).path) == Data(bytes))
        #expect(isLocal(picture, in: phone))
    }

    /// giftless behind lighttpd's https with a self-signed certificate: refused as untrusted
    /// when verified, used when the remote accepts any server.
    @Test func httpsIsRefusedUnverifiedAndUsedWhenTheServerIsAccepted() async throws {
        let lfs = try await LFSSyncLab(tls: true)
        let secure = try #require(lfs.server.secureEndpoint())
        let (laptop, verifying) = try lfs.replica("laptop", assetsURL: secure)
        let bytes = randomBytes(700_000, seed: 56)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        await expectSync(verifying, failsWith: .serverNotTrusted)
        #expect(!FileManager.default.fileExists(atPath: lfs.stored(picture)))
        #expect(try await lfs.referencedOnMain().isEmpty)

        let (_, accepting) = try lfs.replica("laptop", assetsURL: secure, trust: .acceptAnyServer)
        #expect(try await accepting.sync().uploadedAssets == 1)
        #expect(FileManager.default.contents(atPath: lfs.stored(picture)) == Data(bytes))

        let (phone, phoneVerifying) = try lfs.replica("phone", assetsURL: secure)
        try await phoneVerifying.sync()
        #expect(await fetchFailure(phoneVerifying, picture)?.code == .serverNotTrusted)
        let (_, phoneAccepting) = try lfs.replica("phone", assetsURL: secure, trust: .acceptAnyServer)
        #expect(FileManager.default.contents(atPath: try await phoneAccepting.fetchAsset(picture).path) == Data(bytes))
        #expect(isLocal(picture, in: phone))
    }

    /// An object removed from giftless's storage: an eager sync reports `assetMissing`
    /// naming the asset and the record (and exchanges its commits), a fetch fails the same
    /// way, and nothing appears locally.
    @Test func anObjectGoneFromTheServerIsMissingAndNamesTheRecord() async throws {
        let lfs = try await LFSSyncLab()
        let (laptop, laptopSync) = try lfs.replica("laptop")
        let picture = try addTestAsset(to: laptop, bytes: randomBytes(400_000, seed: 57))
        try await laptop.save(AttachmentNote(id: "lost", title: "lost picture", file: picture))
        try await laptopSync.sync()
        try FileManager.default.removeItem(atPath: lfs.stored(picture))

        let (phone, phoneSync) = try lfs.replica("phone", options: ExchangeOptions(assetDownloads: .eager))
        let report = try await phoneSync.sync()
        #expect(try await phone.record("lost")?.file == picture)
        #expect(report.downloadedAssets == 0 && report.assetErrors.map(\.code) == [.assetMissing])
        let missing = try #require(report.assetErrors.first)
        #expect(missing.asset == picture.id && missing.recordID == "lost" && missing.pointer == "/file")
        #expect(missing.message.contains(picture.id.oid) && missing.message.contains("lost"))

        let error = await fetchFailure(phoneSync, picture)
        #expect(error?.code == .assetMissing && error?.asset == picture.id)
        #expect(!isLocal(picture, in: phone))
        #expect(!FileManager.default.fileExists(atPath: partialPath(of: picture, in: phone)))
    }

    /// Bytes in giftless's storage that are not the object's (changed, cut short or longer)
    /// are refused as `assetCorrupt`: neither the file nor a partial one appears locally.
    @Test(arguments: ["same size", "shorter", "longer"])
    func aCorruptObjectOnTheServerIsRefused(damage: String) async throws {
        let lfs = try await LFSSyncLab()
        let (laptop, laptopSync) = try lfs.replica("laptop")
        let bytes = randomBytes(2 << 20, seed: 58)
        let picture = try addTestAsset(to: laptop, bytes: bytes)
        try await laptop.save(AttachmentNote(id: "p", title: "picture", file: picture))
        try await laptopSync.sync()
        var damaged = bytes
        switch damage {
        case "same size": damaged[1_234_567] ^= 0x40
        case "shorter": damaged.removeLast(1000)
        default: damaged += [1, 2, 3]
        }
        try Data(damaged).write(to: URL(fileURLWithPath: lfs.stored(picture)))

        let (phone, phoneSync) = try lfs.replica("phone")
        try await phoneSync.sync()
        let error = await fetchFailure(phoneSync, picture)
        #expect(error?.code == .assetCorrupt, "\(String(describing: error))")
        #expect(error?.asset == picture.id && error?.operation == "download")
        #expect(!isLocal(picture, in: phone))
        #expect(!FileManager.default.fileExists(atPath: localPath(of: picture, in: phone)))
        #expect(!FileManager.default.fileExists(atPath: partialPath(of: picture, in: phone)))
    }

    /// A smart-HTTP remote with no Git LFS server at its derived assets URL
    /// (`<url>/info/lfs`: git http-backend answers there): the sync that must upload fails at
    /// once, naming that URL, and pushes nothing.
    @Test func anHTTPRemoteWithoutAnLFSServerFailsClearly() async throws {
        let lab = try await SyncLab()
        try await git("--git-dir", lab.remotePath, "config", "http.receivepack", "true")
        let http = try await SmartHTTPServer(repositories: lab.folder.path, folder: lab.folder.child("http"))
        let remote = try Remote(http.url("remote.git"))
        #expect(remote.assetsURL == http.url("remote.git") + "/info/lfs")
        let store = try await RecordStore<AttachmentNote>.create(at: lab.folder.child("laptop"))
        try await store.save(AttachmentNote(id: "p", title: "p", file: try addTestAsset(to: store, bytes: randomBytes(5_000, seed: 59))))
        let exchange = Exchange(records: store, remote: remote)
        do {
            try await exchange.sync()
            Issue.record("the sync succeeded")
        } catch {
            #expect(error.code == .notARepository, "\(error)")
            #expect(error.message.contains("no Git LFS server") && error.message.contains(remote.assetsURL ?? "-"), "\(error)")
            #expect(error.operation == "upload", "\(error)")
        }
        #expect(try await git("--git-dir", lab.remotePath, "rev-parse", "--verify", "-q", "main").status != 0)
    }
}

/// The error of a fetch that must fail; nil (and an issue) when it succeeded.
func fetchFailure(_ exchange: Exchange, _ asset: Asset, sourceLocation: SourceLocation = #_sourceLocation) async -> ExchangeError? {
    do {
        _ = try await exchange.fetchAsset(asset)
        Issue.record("the fetch succeeded", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// No text of the error holds the password, nor the basic-authentication header made from it.
func expectNoSecret(_ password: String, in error: ExchangeError, sourceLocation: SourceLocation = #_sourceLocation) {
    let header = Data("\(GiftlessServer.username):\(password)".utf8).base64EncodedString()
    for text in [error.message, error.description, error.localizedDescription, error.reason ?? "", String(reflecting: error)] {
        #expect(!text.contains(password) && !text.contains(header), "\(text)", sourceLocation: sourceLocation)
    }
}
