import ForkStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How assets move with a sync: uploaded before the commits that reference them are pushed,
/// downloaded by the exchange's policy after a sync, or fetched when the app asks.
extension Exchange {
    /// The local file of an asset, fetched from the remote first when the store lacks it.
    ///
    /// The bytes are checked against the asset's id before the file appears: a remote that
    /// lacks them fails with ``ExchangeError/assetMissing(remote:asset:recordID:pointer:reason:)``,
    /// one whose bytes are wrong with ``ExchangeError/assetCorrupt(remote:asset:reason:)``, and
    /// nothing is kept. A fetch interrupted (a lost connection, a killed process) resumes from
    /// where it stopped the next time. Progress comes as ``ExchangeEvent/assetProgress(_:)``
    /// events. Runs on a thread of the exchange's own, never on Swift's cooperative pool, and
    /// waits for no sync.
    ///
    /// ```swift
    /// if let picture = note.picture {
    ///     let file = try await exchange.fetchAsset(picture)
    ///     showImage(at: file)
    /// }
    /// ```
    ///
    /// - Throws: ``ExchangeError`` with ``ExchangeError/Code/assetMissing``,
    ///   ``ExchangeError/Code/assetCorrupt``, ``ExchangeError/Code/offline`` and the other codes of a
    ///   transfer; ``ExchangeError/Code/store`` with `StoreError.assetTooLarge` for an asset over
    ///   the store's `maximumAssetSize`.
    public func fetchAsset(_ asset: Asset) async throws(ExchangeError) -> URL {
        let files = try await fetchAssets([asset])
        guard let file = files.first else {
            throw ExchangeError.store(.repository(operation: "fetching an asset", reason: "no file came back"))
        }
        return file
    }

    /// The local files of assets, in the same order, fetching those the store lacks one after
    /// the other (see ``fetchAsset(_:)``). The first that fails stops the fetch; those fetched
    /// before it stay.
    public func fetchAssets(_ assets: [Asset]) async throws(ExchangeError) -> [URL] {
        let folder = store.engine.assetFolder
        let files = assets.map { URL(fileURLWithPath: folder.path(of: $0.id)) }
        guard assets.contains(where: { !folder.contains($0.id, size: $0.size) }) else { return files }
        let result: Result<Void, ExchangeError> = await withCheckedContinuation { continuation in
            assetQueue.async {
                continuation.resume(returning: Result { () throws(ExchangeError) in
                    try self.fetchNow(assets.map { ReferencedAsset(asset: $0, recordID: nil, pointer: "") })
                })
            }
        }
        try result.get()
        return files
    }

    /// Brings `references` into the store's asset folder now; the caller is on a thread that
    /// may block.
    private func fetchNow(_ references: [ReferencedAsset]) throws(ExchangeError) {
        let folder = store.engine.assetFolder
        let missing = Self.unique(references.filter { !folder.contains($0.asset.id, size: $0.asset.size) })
        guard !missing.isEmpty else { return }
        try checkSizes(missing)
        try checkLocalRemote()
        let transport = try assetTransport()
        let planned = missing.map { AssetTransferProgress(direction: .download, asset: $0.asset, bytes: 0, totalBytes: $0.asset.size) }
        state.withLock { $0.fetchTransfers += planned }
        defer {
            let ids = Set(missing.map(\.asset.id))
            state.withLock { $0.fetchTransfers.removeAll { ids.contains($0.asset.id) } }
        }
        try moving(missing, .download, in: \.fetchTransfers) { progress in
            try transport.download(missing.map { AssetObject($0.asset) }, into: folder, progress: progress)
        }
    }

    // MARK: Uploads

    /// Uploads the assets `outgoing` commits reference that the commits they build on did not,
    /// except those known to be on the remote already (which it adds to); returns how many
    /// were sent. Every reference must be local or on the remote: one that is neither stops the
    /// push with ``ExchangeError/assetMissing(remote:asset:recordID:pointer:reason:)``.
    func uploadAssets(introducedBy outgoing: [Commit], alreadyOnRemote: inout Set<AssetID>) throws(ExchangeError) -> Int {
        let known = alreadyOnRemote
        let references = try step { try store.engine.assets(introducedBy: outgoing) }.filter { !known.contains($0.asset.id) }
        guard !references.isEmpty else { return 0 }
        let transport = try assetTransport()
        let folder = store.engine.assetFolder
        update {
            $0.syncTransfers = references.map {
                AssetTransferProgress(direction: .upload, asset: $0.asset, bytes: 0, totalBytes: $0.asset.size)
            }
        }
        let sent = try moving(references, .upload, in: \.syncTransfers) { progress in
            try transport.upload(references.map { AssetObject($0.asset) }, from: folder, progress: progress)
        }
        alreadyOnRemote.formUnion(references.map(\.asset.id))
        update { $0.syncTransfers.removeAll() }
        return sent
    }

    // MARK: Downloads by policy

    /// Downloads what ``ExchangeOptions/assetDownloads`` wants of the assets `main` gained
    /// since the last sync that brought all it wanted, counting them in `report`; what fails
    /// goes to ``SyncReport/assetErrors`` and is tried again by the next sync.
    func downloadByPolicy(_ report: inout SyncReport) {
        guard let wanted = options.assetDownloads.wanted else { return }
        let engine = store.engine
        let folder = engine.assetFolder
        let mark = folder.root + "/" + Self.downloadMarkName
        do {
            let head = try step { try store.head(of: .main).id }
            let since = Self.readMark(mark)
            guard since != head else { return }
            // A mark naming a commit the store no longer has reads all of `main`.
            let changed = try step { () throws -> [ReferencedAsset] in
                do { return try engine.assets(changedFrom: since, to: head) } catch { return try engine.assets(changedFrom: nil, to: head) }
            }
            let missing = changed.filter { !folder.contains($0.asset.id, size: $0.asset.size) && wanted($0) }
            // An asset over the size limit can never come: reported once, it does not hold
            // the mark back (which would read and report it again at every sync).
            let limit = store.options.maximumAssetSize
            for reference in missing where reference.asset.size > limit {
                report.assetErrors.append(.store(.assetTooLarge(size: reference.asset.size, limit: limit)))
            }
            let refusedForSize = report.assetErrors.count
            try download(missing.filter { $0.asset.size <= limit }, &report)
            if report.assetErrors.count == refusedForSize { try step { try Self.writeMark(head, to: mark) } }
        } catch {
            report.assetErrors.append(error)
        }
    }

    /// Downloads the pinned assets that are not here, whatever the policy: a pin asks for an
    /// asset to be kept for use offline. What fails goes to ``SyncReport/assetErrors``.
    func downloadPinned(_ report: inout SyncReport) {
        do {
            let folder = store.engine.assetFolder
            let pinned = try step { try store.pinnedAssets() }
            let missing = pinned.filter { !folder.contains($0.id, size: $0.size) }
            try download(missing.map { ReferencedAsset(asset: $0, recordID: nil, pointer: "") }, &report)
        } catch {
            report.assetErrors.append(error)
        }
    }

    /// Downloads `references` in groups of up to ``downloadGroupSize`` (one batch request each
    /// over Git LFS, not one per asset), counting them in `report`. The transport goes on past
    /// one object's failure and throws the first: that one is added to
    /// ``SyncReport/assetErrors`` and the rest of the group still missing is asked for again,
    /// so every failure is reported, each costing one more request at most. A failure of the
    /// whole transfer (offline, refused sign-in) is reported once and ends the downloads.
    private func download(_ references: [ReferencedAsset], _ report: inout SyncReport) throws(ExchangeError) {
        guard !references.isEmpty else { return }
        let folder = store.engine.assetFolder
        try checkLocalRemote()
        let transport = try assetTransport()
        update {
            $0.syncTransfers = references.map {
                AssetTransferProgress(direction: .download, asset: $0.asset, bytes: 0, totalBytes: $0.asset.size)
            }
        }
        var takeable: [ReferencedAsset] = []
        for reference in references {
            do {
                try checkSizes([reference])
                takeable.append(reference)
            } catch {
                report.assetErrors.append(error)
            }
        }
        for start in stride(from: 0, to: takeable.count, by: Self.downloadGroupSize) {
            var pending = Array(takeable[start..<min(start + Self.downloadGroupSize, takeable.count)])
            while !pending.isEmpty {
                var failed: AssetID?
                do {
                    let asked = pending
                    try moving(asked, .download, in: \.syncTransfers) { progress in
                        try transport.download(asked.map { AssetObject($0.asset) }, into: folder, progress: progress)
                    }
                } catch {
                    report.assetErrors.append(error)
                    // A failure naming no asset is the whole transfer's: the others would fail alike.
                    guard let id = error.asset else {
                        pending.removeAll { !folder.contains($0.asset.id, size: $0.asset.size) }
                        count(pending, into: &report)
                        return
                    }
                    failed = id
                }
                let arrived = pending.filter { folder.contains($0.asset.id, size: $0.asset.size) }
                count(arrived, into: &report)
                let before = pending.count
                pending.removeAll { $0.asset.id == failed || folder.contains($0.asset.id, size: $0.asset.size) }
                // Done, or a failure that took nothing off the list (asking again would loop).
                if failed == nil || pending.count == before { break }
            }
        }
    }

    /// Counts downloaded `references` in `report` and takes them off the status.
    private func count(_ references: [ReferencedAsset], into report: inout SyncReport) {
        report.downloadedAssets += references.count
        let ids = Set(references.map(\.asset.id))
        update { $0.syncTransfers.removeAll { ids.contains($0.asset.id) } }
    }

    /// The most assets one download request of a sync asks for: a Git LFS batch's limit.
    static let downloadGroupSize = 100

    /// The file in the store's asset folder naming the commit of `main` whose assets the
    /// download policy last brought in full.
    static let downloadMarkName = "forkstore-downloaded-through"

    static func readMark(_ path: String) -> CommitID? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return CommitID(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func writeMark(_ commit: CommitID, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data((commit.hex + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    // MARK: Transports

    /// The transport that moves this exchange's assets: the one place that picks it. A path
    /// remote's (or a local `assetsURL`'s) repository folder gets a ``PathAssetTransport``; a
    /// Git LFS endpoint over http(s), the Git LFS batch API.
    func assetTransport() throws(ExchangeError) -> any AssetTransport {
        switch try remote.assetEndpoint() {
        case .folder(let repository):
            guard FileManager.default.fileExists(atPath: repository) else {
                throw ExchangeError.offline(remote: remote.url, reason: "there is no folder at \(repository) for its assets")
            }
            return PathAssetTransport(repository: repository, pause: options.assetPause)
        case .lfs(let url):
            // Basic authentication with the remote's user and password; ssh keys mean
            // nothing to an HTTP server. TLS is verified unless the remote accepts any server.
            var username: String?, password: String?
            if case .userPassword(let user, let secret)? = remote.credentials {
                (username, password) = (user, secret)
            }
            do {
                return try LFSTransport(
                    endpoint: url, username: username, password: password,
                    trust: remote.trust == .acceptAnyServer ? .acceptAny : .verify,
                    connectTimeout: options.connectTimeout, readTimeout: options.readWriteTimeout, pause: options.assetPause)
            } catch {
                throw ExchangeError.invalidRemote(url: remote.url, reason: error.description)
            }
        }
    }

    /// Runs one transfer of `references`, publishing its progress and keeping the status
    /// list at `list` up to date, with its failure sorted into an ``ExchangeError`` that names
    /// the asset and where it is referenced.
    private func moving<Result>(
        _ references: [ReferencedAsset], _ direction: AssetTransferProgress.Direction,
        in list: WritableKeyPath<ExchangeStatus, [AssetTransferProgress]>,
        _ body: ((AssetTransferCount) -> Void) throws -> Result
    ) throws(ExchangeError) -> Result {
        let assets = Dictionary(references.map { ($0.asset.id, $0.asset) }, uniquingKeysWith: { first, _ in first })
        do {
            return try body { count in
                guard let asset = assets[count.object.id] else { return }
                let progress = AssetTransferProgress(direction: direction, asset: asset, bytes: count.bytes, totalBytes: asset.size)
                state.withLock { status in
                    if let index = status[keyPath: list].firstIndex(where: { $0.asset.id == asset.id && $0.direction == direction }) {
                        status[keyPath: list][index] = progress
                    }
                }
                publish(.assetProgress(progress))
            }
        } catch {
            throw assetError(error, references: references, during: direction == .upload ? "upload" : "download")
        }
    }

    /// What a failed asset transfer means to the app, naming the asset and where it is
    /// referenced, with secrets scrubbed from what the remote said.
    private func assetError(_ error: any Error, references: [ReferencedAsset], during operation: String) -> ExchangeError {
        func place(_ id: AssetID) -> ReferencedAsset? { references.first { $0.asset.id == id } }
        func scrubbed(_ text: String) -> String { Remote.redacted(remote.credentials?.scrubbed(text) ?? text) }
        let url = remote.url
        switch error {
        case let failure as AssetTransferFailure:
            switch failure {
            case .missingOnRemote(let id):
                return ExchangeError.assetMissing(
                    remote: url, asset: id, recordID: place(id)?.recordID, pointer: place(id)?.pointer,
                    reason: "the remote \(url) does not have it (a replica referenced it without uploading it, or it was removed there); nothing was fetched"
                ).during(operation)
            case .missingLocally(let id):
                return ExchangeError.assetMissing(
                    remote: url, asset: id, recordID: place(id)?.recordID, pointer: place(id)?.pointer,
                    reason: "it is neither in this store nor on the remote \(url), so the commits that reference it were not pushed; add its bytes to the store and sync again"
                ).during(operation)
            case .corrupt(let id, let reason):
                return ExchangeError.assetCorrupt(remote: url, asset: id, reason: scrubbed(reason)).during(operation)
            case .refused(let id, let reason):
                return ExchangeError(
                    .transport, "Syncing with \(url) failed: the remote refused asset \(id): \(scrubbed(reason)).",
                    operation: operation, remote: url, reason: scrubbed(reason), asset: id, recordID: place(id)?.recordID,
                    pointer: place(id)?.pointer)
            }
        case TransferFailure.notARepository(let reason):
            // The git repository answered; its assets' endpoint did not: say which.
            let reason = scrubbed(reason)
            return ExchangeError(
                .notARepository,
                "The remote \(url) has no Git LFS server for its assets at \(remote.assetsURL.map(Remote.redacted) ?? "its assets URL"): \(reason). Set Remote.assetsURL to its Git LFS endpoint.",
                operation: operation, remote: url, reason: reason)
        case let failure as TransferFailure:
            return exchangeError(for: failure).during(operation)
        case let error as ExchangeError:
            return error
        case let error as StoreError:
            return Self.translate(error)
        default:
            return ExchangeError.store(.repository(operation: "moving assets", reason: String(describing: error)))
        }
    }

    /// Refuses to download an asset larger than the store takes, before any byte moves.
    private func checkSizes(_ references: [ReferencedAsset]) throws(ExchangeError) {
        let limit = store.options.maximumAssetSize
        if let large = references.first(where: { $0.asset.size > limit }) {
            throw ExchangeError.store(.assetTooLarge(size: large.asset.size, limit: limit))
        }
    }

    private static func unique(_ references: [ReferencedAsset]) -> [ReferencedAsset] {
        var seen = Set<AssetID>()
        return references.filter { seen.insert($0.asset.id).inserted }
    }
}
