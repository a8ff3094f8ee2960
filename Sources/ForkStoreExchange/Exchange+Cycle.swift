import ForkStore
import Foundation

extension Exchange {
    /// One sync, with its state changes, hooks and events. Runs on the exchange's queue.
    func runCycle() throws(ExchangeError) -> SyncReport {
        update {
            $0.state = .syncing
            $0.syncTransfers = []  // what the last sync left is found again
        }
        do {
            var report = try cycleHoldingTheSyncLock()
            if let checkpoint = try compactIfDue() {
                // The new lineage goes out at once, under a lease, with its archive.
                let pushed = try cycleHoldingTheSyncLock()
                report.checkpoint = checkpoint
                report.pushedCommits += pushed.pushedCommits
                report.pushAttempts += pushed.pushAttempts
                report.fetchedCommits += pushed.fetchedCommits
                report.conflicts += pushed.conflicts
                report.uploadedAssets += pushed.uploadedAssets
                report.carriedOntoRemoteHistory = report.carriedOntoRemoteHistory || pushed.carriedOntoRemoteHistory
                if let merge = pushed.merge { report.merge = merge }
            }
            downloadByPolicy(&report)
            downloadPinned(&report)
            let quarantine = quarantinedFetch()
            update {
                $0.state = .idle
                $0.lastError = nil
                $0.lastSuccess = Date()
                $0.quarantine = quarantine
            }
            options.onFinished?(report)
            publish(.finished(report))
            return report
        } catch {
            let quarantine = quarantinedFetch()
            update {
                $0.state = Self.state(after: error)
                $0.lastError = error
                $0.quarantine = quarantine
            }
            options.onError?(error)
            publish(.error(error))
            throw error
        }
    }

    /// Compacts the store's history as its policy asks when ``ExchangeOptions/compactionInterval``
    /// has passed since this exchange last did; returns the new checkpoint, or nil. A shared
    /// store's replica that is no owner leaves compaction to an owner.
    private func compactIfDue() throws(ExchangeError) -> CommitID? {
        guard let interval = options.compactionInterval else { return nil }
        // The remote would not take the new lineage: main would only go back onto its history.
        if state.withLock({ $0.remoteRefusesHistoryReplacement }) { return nil }
        let now = Date()
        if let last = state.withLock({ $0.lastCompaction }), now.timeIntervalSince(last) < interval.seconds { return nil }
        let compaction: Compaction?
        do {
            compaction = try step { try store.compactHistory(keeping: nil) }
        } catch where error.storeError?.code == .compactionRefused {
            return nil
        }
        guard let compaction else { return nil }
        update { $0.lastCompaction = now }
        return compaction.checkpoint
    }

    /// The fetch the transfer repository keeps after this sync, if any.
    private func quarantinedFetch() -> QuarantinedFetch? {
        guard let kept = try? store.engine.quarantinedFetch() else { return nil }
        return QuarantinedFetch(head: kept.head, repository: kept.repository, reference: kept.reference)
    }

    private static func state(after error: ExchangeError) -> ExchangeState {
        switch error.code {
        case .offline, .pushRejected: .offline
        case .halted: .halted(found: error.foundVersion ?? 0, known: error.supportedVersion ?? 0)
        default: .failed
        }
    }

    /// Runs the cycle once no other sync of the store runs, waiting at most
    /// ``ExchangeOptions/busyTimeout`` for one that does.
    private func cycleHoldingTheSyncLock() throws(ExchangeError) -> SyncReport {
        let outcome = try step {
            try store.engine.withSyncLock(waitingAtMost: options.busyTimeout) {
                Result { () throws(ExchangeError) in try cycle() }
            }
        }
        guard let outcome else { throw ExchangeError.busy(waited: options.busyTimeout) }
        return try outcome.get()
    }

    private func cycle() throws(ExchangeError) -> SyncReport {
        try checkLocalRemote()
        let engine = store.engine
        var report = SyncReport()
        let refusesReplacement = try step { try engine.refusesReplacement(remote.url) }
        update { $0.remoteRefusesHistoryReplacement = refusesReplacement }
        // A push the server refused, and the remote head we had then: if the remote has not
        // moved since, the refusal was not a lost race but a real one (a hook, a protection).
        var refusal: (reason: String, remoteHead: CommitID?)?
        // With local commits to send on top of what `cloud` holds, push first: a push lists
        // the remote's heads itself and sends nothing unless the remote's main is still an
        // ancestor, so a sync that only has something to send costs one round trip, not a
        // fetch and a push. A refusal goes on to the fetch and merge.
        var deniedPush: ExchangeError?
        // Assets this sync found on the remote or sent there: a push tried again after a lost
        // race asks only about the others.
        var assetsOnRemote = Set<AssetID>()
        if try canPushFirst() {
            report.pushAttempts = 1
            do {
                let cloud = try step { try store.head(of: .cloud).id }
                switch try push(&report, assetsOnRemote: &assetsOnRemote) {
                case .accepted: return report
                case .behind: break  // another replica pushed: fetch and merge at once
                case .rejected(let reason): refusal = (reason, cloud)
                }
            } catch {
                // A user who may read but not write still takes in what others pushed.
                guard error.code == .accessDenied else { throw error }
                deniedPush = error
            }
        }
        while true {
            let fetched = try step(during: "fetch") { try engine.fetchRemoteMain(from: remote.url, localPath: remote.localPath, options: remoteOptions(.fetch)) }
            if let refusal, refusal.remoteHead == fetched {
                throw ExchangeError.transport(remote: remote.url, reason: "the remote refused the push: \(refusal.reason)")
            }
            if let fetched {
                let archive = try fetchArchive(for: fetched)
                let (newCommits, merge) = try step {
                    try engine.integrate(
                        fetched, archive: archive, resolvingConflicts: options.conflictResolver, trustedOwners: Set(options.trustedOwners),
                        checkProgress: { [weak self] checked, total in self?.publish(.checkProgress(CheckProgress(commits: checked, totalCommits: total))) },
                        landingProgress: { [weak self] done, total in self?.publish(.indexProgress(IndexProgress(records: done, totalRecords: total))) })
                }
                report.fetchedCommits += newCommits
                report.merge = merge
                report.conflicts += Self.conflicts(of: merge)
            }
            if let deniedPush, try step({ try !engine.outgoingCommits().isEmpty }) { throw deniedPush }
            guard report.pushAttempts < options.maximumPushAttempts else {
                throw ExchangeError.pushRejected(
                    remote: remote.url, attempts: options.maximumPushAttempts, reason: "other replicas kept pushing first")
            }
            report.pushAttempts += 1
            switch try push(&report, assetsOnRemote: &assetsOnRemote) {
            case .accepted: return report
            case .behind: refusal = nil
            case .rejected(let reason): refusal = (reason, fetched)
            }
            if report.pushAttempts < options.maximumPushAttempts {
                Thread.sleep(forTimeInterval: options.backoff(attempt: report.pushAttempts).seconds)
            }
        }
    }

    /// Whether a sync may push before it fetches: it has synced before (a new replica first
    /// takes in what the remote holds), and `main` holds commits `cloud` lacks and every one
    /// `cloud` has (a merge of `cloud` that did not finish is finished by a fetch first).
    private func canPushFirst() throws(ExchangeError) -> Bool {
        guard try step({ try store.hasFork(.cloud) }) else { return false }
        let (ahead, behind) = try step { try store.divergence(of: .main, from: .cloud) }
        return ahead > 0 && behind == 0
    }

    /// Pushes the commits of `main` that the remote (as `cloud` last saw it) lacks, after the
    /// app's check and after uploading the assets they reference, and moves `cloud` when the
    /// remote took them; accepted too when there was nothing to push.
    private func push(
        _ report: inout SyncReport, assetsOnRemote: inout Set<AssetID>, afterRefusal: Bool = false
    ) throws(ExchangeError) -> PushOutcome {
        let engine = store.engine
        if state.withLock({ $0.remoteRefusesHistoryReplacement }) { try carryOntoRemoteLineage(&report) }
        let outgoing = try step { try engine.outgoingCommits() }
        if let head = outgoing.first?.id {
            if let validate = options.validateBeforePush {
                do { try validate(outgoing) } catch { throw ExchangeError.validationFailed(reason: String(describing: error)) }
            }
            // The remote never holds a commit whose assets it lacks.
            report.uploadedAssets += try uploadAssets(introducedBy: outgoing, alreadyOnRemote: &assetsOnRemote)
            let outcome: PushOutcome
            switch try pushMain(head) {
            case .pushed(let pushed): outcome = pushed
            case .replacementRefused(let reason) where afterRefusal:
                return .rejected(reason)
            case .replacementRefused(let reason):
                // Remembered first, so the push below (and every later sync) carries main onto
                // the remote's lineage and sends it as a fast-forward.
                try step { try engine.rememberRefusedReplacement(by: remote.url, reason: reason) }
                update { $0.remoteRefusesHistoryReplacement = true }
                report.pushAttempts += 1
                return try push(&report, assetsOnRemote: &assetsOnRemote, afterRefusal: true)
            }
            guard outcome == .accepted else { return outcome }
            try step { try engine.moveCloud(to: head) }
            report.pushedCommits = outgoing.count
        }
        try refreshAheadBehind()
        return .accepted
    }

    /// What pushing `main` came to.
    private enum MainPush {
        /// The push's outcome.
        case pushed(PushOutcome)
        /// `main` would replace the remote's lineage, and the remote refused, its `main` still
        /// what `cloud` last saw: a server that refuses non-fast-forward updates.
        case replacementRefused(String)
    }

    /// Pushes `head` as the remote's `main`: a fast-forward, or, when `main` is on a
    /// checkpoint lineage the remote does not hold yet (this replica compacted, or its
    /// lineage won the adoption rule), a replacement under a lease: taken only while the
    /// remote's `main` is still what `cloud` last saw, after the lineage's archive (FORMAT.md
    /// §16). A lost lease is ``PushOutcome/behind(_:)``: the cycle fetches, adopts and retries.
    /// A replacement the remote refuses although its `main` had not moved (the archive ref or
    /// the forced update) is ``MainPush/replacementRefused(_:)``.
    private func pushMain(_ head: CommitID) throws(ExchangeError) -> MainPush {
        let engine = store.engine
        let cloud = try step { try store.hasFork(.cloud) ? store.head(of: .cloud).id : nil }
        guard let replaced = try step({ try engine.replacedLineage(pushing: head, over: cloud) }) else {
            return .pushed(try step(during: "push") {
                try engine.pushMain(head, to: remote.url, localPath: remote.localPath, options: remoteOptions(.push))
            })
        }
        let archived = try step(during: "push") {
            try engine.pushArchive(of: replaced.checkpoint, to: remote.url, localPath: remote.localPath, options: remoteOptions(.push))
        }
        if case .rejected(let reason) = archived { return .replacementRefused("the archive ref was refused: \(reason)") }
        guard archived == .accepted else { return .pushed(archived) }
        let replacing = try step(during: "push") {
            try engine.pushMain(head, to: remote.url, localPath: remote.localPath, replacing: .some(cloud), options: remoteOptions(.push))
        }
        if case .rejected(let reason) = replacing { return .replacementRefused(reason) }
        return .pushed(replacing)
    }

    /// Moves `main`, when it is on a checkpoint lineage the remote's `main` (as `cloud` last
    /// saw it) is not, back onto the remote's lineage, its changes carried over: what a sync
    /// does with a remote that refuses to have its `main` replaced.
    private func carryOntoRemoteLineage(_ report: inout SyncReport) throws(ExchangeError) {
        let merge = try step { try store.engine.carryOntoRemoteLineage(resolvingConflicts: options.conflictResolver) }
        guard merge != .upToDate else { return }
        report.carriedOntoRemoteHistory = true
        report.merge = merge
        report.conflicts += Self.conflicts(of: merge)
    }

    /// The remote's archive of the checkpoint lineage `fetched` is on, when this replica is on
    /// another lineage and keeps none: the old history its carry-over is computed against.
    private func fetchArchive(for fetched: CommitID) throws(ExchangeError) -> (checkpoint: CommitID, head: CommitID)? {
        let engine = store.engine
        guard let checkpoint = try step({ try engine.archiveToFetch(for: fetched) }) else { return nil }
        let head = try step(during: "fetch") {
            try engine.fetchArchive(of: checkpoint, from: remote.url, localPath: remote.localPath, options: remoteOptions(.fetch))
        }
        return head.map { (checkpoint, $0) }
    }

    // MARK: Steps

    /// Runs one step of the cycle, sorting its failure into an ``ExchangeError``; a failed
    /// transfer names `operation` (`"fetch"`, `"push"`).
    func step<Result>(during operation: String? = nil, _ body: () throws -> Result) throws(ExchangeError) -> Result {
        do {
            return try body()
        } catch let failure as TransferFailure {
            throw exchangeError(for: failure).during(operation)
        } catch let error as StoreError {
            throw Self.translate(error)
        } catch {
            throw ExchangeError.store(.repository(operation: "syncing", reason: String(describing: error)))
        }
    }

    /// A missing local folder is offline (a drive not mounted); a folder that is not a
    /// repository is an error.
    func checkLocalRemote() throws(ExchangeError) {
        guard let path = remote.localPath else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ExchangeError.offline(remote: remote.url, reason: "there is no folder at \(path)")
        }
        let looksLikeRepository = ["HEAD", "objects", "refs"].allSatisfy {
            FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent($0))
                || FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(".git/" + $0))
        }
        guard isDirectory.boolValue, looksLikeRepository else {
            throw ExchangeError.notARepository(remote: remote.url, reason: "\(path) holds no git repository")
        }
    }

    private func refreshAheadBehind() throws(ExchangeError) {
        guard let (ahead, behind) = try step({ try store.hasFork(.cloud) ? store.divergence(of: .main, from: .cloud) : nil })
        else { return }
        update {
            $0.ahead = ahead
            $0.behind = behind
        }
    }

    // MARK: Transport options and errors

    private func remoteOptions(_ direction: TransferProgress.Direction) -> RemoteOptions {
        let credential: RemoteCredential? =
            switch remote.credentials {
            case .userPassword(let username, let password)?: .userPassword(username: username, password: password)
            case .sshKey(let username, let privateKey, let publicKey, let passphrase)?:
                .sshKey(username: username, publicKeyPath: publicKey, privateKeyPath: privateKey, passphrase: passphrase)
            case .sshAgent(let username)?: .sshAgent(username: username)
            case nil: nil
            }
        let trust: TrustPolicy =
            switch remote.trust {
            case .verify: .verify
            case .acceptAnyServer: .acceptAny
            case .pinnedHostKey(let fingerprint): .pinnedHostKey(sha256: Self.decodeFingerprint(fingerprint))
            }
        let timeouts = NetworkTimeouts(connect: options.connectTimeout, io: options.readWriteTimeout)
        let limits = IncomingLimits(
            maximumObjectSize: options.maximumObjectSize ?? store.engine.defaultMaximumIncomingObjectSize,
            maximumFetchSize: options.maximumFetchSize, maximumObjectCount: options.maximumObjectCount)
        let pacing = TransferProgressPacing()
        return RemoteOptions(credential: credential, trust: trust, timeouts: timeouts, limits: limits) { [weak self] statistics in
            let progress = TransferProgress(
                direction: statistics.direction == .fetch ? .fetch : .push,
                objects: statistics.objects, totalObjects: statistics.totalObjects, bytes: statistics.bytes)
            if pacing.admits(progress) { self?.publish(.progress(progress)) }
        }
    }

    /// `SHA256:base64` (as `ssh-keygen -lf` prints it) to raw bytes; empty if malformed, which
    /// then matches no key.
    static func decodeFingerprint(_ text: String) -> [UInt8] {
        var body = text.hasPrefix("SHA256:") ? String(text.dropFirst(7)) : text
        while body.count % 4 != 0 { body += "=" }
        return Data(base64Encoded: body).map(Array.init) ?? []
    }

    static func conflicts(of outcome: MergeOutcome) -> [MergeConflict] {
        if case .merged(_, let conflicts) = outcome { return conflicts }
        return []
    }

    static func translate(_ error: StoreError) -> ExchangeError {
        if error.code == .unknownModelVersion, let found = error.foundVersion, let known = error.supportedVersion,
            let commit = error.commit
        {
            return .halted(found: found, known: known, commit: commit)
        }
        return .store(error)
    }

    /// What a failed transfer means to the app, one case for one case, with secrets scrubbed
    /// (the credentials, and any user or password in a URL the server echoed). The failure
    /// was sorted where it was received (``TransferFailure``); nothing here reads its words.
    func exchangeError(for failure: TransferFailure) -> ExchangeError {
        let reason = Remote.redacted(remote.credentials?.scrubbed(failure.reason) ?? failure.reason)
        let url = remote.url
        return switch failure {
        case .authentication: .authenticationFailed(remote: url, reason: reason)
        case .untrustedServer: .serverNotTrusted(remote: url, reason: reason)
        case .accessDenied: .accessDenied(remote: url, reason: reason)
        case .notARepository: .notARepository(remote: url, reason: reason)
        case .corruptData: .corruptData(remote: url, reason: reason)
        case .unreachable: .offline(remote: url, reason: reason)
        case .redirectRefused:
            .transport(
                remote: url,
                reason: "the remote redirected to another host, which is not followed: credentials go to the remote's own origin only (\(reason))")
        case .transport: .transport(remote: url, reason: reason)
        case .limitExceeded(let exceeded):
            .tooLarge(
                remote: url, limit: IncomingLimit(exceeded.limit), maximum: exceeded.maximum, size: exceeded.size, object: exceeded.object)
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
