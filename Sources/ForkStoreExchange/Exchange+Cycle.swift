import ForkStore
import ForkStoreGit
import Foundation

extension Exchange {
    /// The references the exchange writes besides `cloud`: where a fetch lands before its
    /// commits are checked.
    static var incomingReference: String { "refs/forkstore/incoming" }
    /// The exact commit being pushed (`main` may move on while the push runs).
    static var outgoingReference: String { "refs/forkstore/outgoing" }

    /// One sync, with its state changes, hooks and events. Runs on the exchange's queue.
    func runCycle() throws(ExchangeError) -> SyncReport {
        update { $0.state = .syncing }
        do {
            let report = try cycle()
            update {
                $0.state = .idle
                $0.lastError = nil
                $0.lastSuccess = Date()
            }
            options.onFinished?(report)
            publish(.finished(report))
            return report
        } catch {
            update {
                $0.state = Self.state(after: error)
                $0.lastError = error
            }
            options.onError?(error)
            publish(.error(error))
            throw error
        }
    }

    private static func state(after error: ExchangeError) -> ExchangeState {
        switch error {
        case .offline, .pushRejected: .offline
        case .halted(let found, let known, _): .halted(found: found, known: known)
        default: .failed
        }
    }

    private func cycle() throws(ExchangeError) -> SyncReport {
        try checkLocalRemote()
        let repository = try openRepository()
        var report = SyncReport()
        // A push the server refused, and the remote head we had then: if the remote has not
        // moved since, the refusal was not a lost race but a real one (a hook, a protection).
        var refusal: (reason: String, remoteHead: ObjectID?)?
        for attempt in 1...options.maximumPushAttempts {
            report.pushAttempts = attempt
            let fetched = try fetch(into: repository)
            if let refusal, refusal.remoteHead == fetched {
                throw ExchangeError.transport(remote: remote.url, reason: "the remote refused the push: \(refusal.reason)")
            }
            if let incoming = fetched {
                report.fetchedCommits += try adopt(incoming, repository: repository)
                do {
                    report.merge = try store.merge(from: .cloud, into: .main, resolvingConflicts: options.conflictResolver)
                    report.conflicts += report.merge.map(Self.conflicts(of:)) ?? []
                } catch let error as StoreError {
                    throw Self.translate(error)
                } catch {
                    throw ExchangeError.validationFailed(reason: String(describing: error))
                }
            }
            let outgoing = try commitsToPush(repository)
            guard !outgoing.isEmpty else {
                try refreshAheadBehind(repository)
                return report
            }
            if let validate = options.validateBeforePush {
                do { try validate(outgoing) } catch { throw ExchangeError.validationFailed(reason: String(describing: error)) }
            }
            let head = outgoing[0].id
            guard let rejection = try push(head, repository: repository) else {
                try moveCloud(to: head, repository: repository)
                report.pushedCommits = outgoing.count
                try refreshAheadBehind(repository)
                return report
            }
            refusal = (rejection, fetched)
            if attempt < options.maximumPushAttempts {
                Thread.sleep(forTimeInterval: options.backoff(attempt: attempt).seconds)
            }
        }
        throw ExchangeError.pushRejected(
            remote: remote.url, attempts: options.maximumPushAttempts,
            reason: "other replicas kept pushing first")
    }

    // MARK: Steps

    /// A missing local folder is offline (a drive not mounted); a folder that is not a
    /// repository is an error.
    private func checkLocalRemote() throws(ExchangeError) {
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

    /// The exchange's own handle on the store's repository, so network work never holds the
    /// store's lock and local reads and writes go on during a sync.
    private func openRepository() throws(ExchangeError) -> Repository {
        do {
            return try Repository.openBare(at: store.path)
        } catch {
            throw ExchangeError.store(.repository(operation: "opening the store for sync", reason: error.message))
        }
    }

    /// Fetches the remote's `main` into the incoming reference; nil when the remote has no
    /// `main` yet (an empty remote).
    private func fetch(into repository: Repository) throws(ExchangeError) -> ObjectID? {
        try writeScratchReference(Self.incomingReference, to: nil)
        do {
            try repository.fetch(
                from: remote.url, refspecs: ["+refs/heads/main:\(Self.incomingReference)"],
                options: remoteOptions(.fetch))
            return try repository.resolveReference(Self.incomingReference)
        } catch {
            throw classify(error)
        }
    }

    /// Checks every fetched commit `main` lacks (halting on an unknown model version, with
    /// `cloud` left at the last readable state), then moves `cloud` to the fetched head.
    /// Returns how many commits were new to `main`.
    private func adopt(_ incoming: ObjectID, repository: Repository) throws(ExchangeError) -> Int {
        let main: ObjectID?
        let newCommits: [ObjectID]
        do {
            main = try repository.resolveReference("refs/heads/main")
            newCommits = try repository.walk(from: incoming, hiding: main)
        } catch {
            throw classify(error)
        }
        do {
            // Check first: `cloud` only ever names data this build can read.
            try Store<Value>.checkIncoming(incoming, notIn: main, in: repository)
            try moveCloud(to: CommitID(objectID: incoming), repository: repository)
        } catch let error as StoreError {
            throw Self.translate(error)
        } catch let error as ExchangeError {
            throw error
        } catch {
            throw ExchangeError.store(.repository(operation: "checking fetched commits", reason: String(describing: error)))
        }
        return newCommits.count
    }

    /// Commits on `main` that the remote (as last seen in `cloud`) lacks, newest first.
    private func commitsToPush(_ repository: Repository) throws(ExchangeError) -> [Commit] {
        do {
            guard let main = try repository.resolveReference("refs/heads/main") else { return [] }
            let cloud = try repository.resolveReference("refs/heads/cloud")
            return try repository.walk(from: main, hiding: cloud).map { try Store<Value>.readCommit($0, in: repository) }
        } catch let error as GitError {
            throw classify(error)
        } catch let error as StoreError {
            throw Self.translate(error)
        } catch {
            throw ExchangeError.store(.repository(operation: "listing commits to push", reason: String(describing: error)))
        }
    }

    /// Pushes `main` at `head`. Returns nil on success, or the server's reason when it refused
    /// the update (usually because another replica pushed first).
    private func push(_ head: CommitID, repository: Repository) throws(ExchangeError) -> String? {
        try writeScratchReference(Self.outgoingReference, to: head.objectIDForExchange)
        let result: PushResult
        do {
            result = try repository.push(
                to: remote.url, refspecs: ["\(Self.outgoingReference):refs/heads/main"], options: remoteOptions(.push))
        } catch where error.code == .nonFastForward {
            return error.message
        } catch {
            throw classify(error)
        }
        return result.rejected.values.first
    }

    /// Points one of the exchange's scratch references (incoming, outgoing) at `target`, or
    /// removes it, holding the store's writer lock like every other reference update.
    private func writeScratchReference(_ name: String, to target: ObjectID?) throws(ExchangeError) {
        do {
            try store.withExclusiveRepository { repository in
                try repository.removeReference(name)
                if let target {
                    try repository.updateReference(name, to: target, expecting: nil, logMessage: "forkstore: exchange")
                }
            }
        } catch {
            throw ExchangeError.store(.repository(operation: "updating \(name)", reason: String(describing: error)))
        }
    }

    private func moveCloud(to commit: CommitID, repository: Repository) throws(ExchangeError) {
        do {
            try store.withExclusiveRepository { storeRepository in
                let current = try storeRepository.resolveReference("refs/heads/cloud")
                guard current != commit.objectIDForExchange else { return }
                try storeRepository.updateReference(
                    "refs/heads/cloud", to: commit.objectIDForExchange, expecting: current,
                    logMessage: "forkstore: exchange")
            }
        } catch let error as GitError {
            throw ExchangeError.store(.repository(operation: "moving cloud", reason: error.message))
        } catch let error as StoreError {
            throw ExchangeError.store(error)
        } catch {
            throw ExchangeError.store(.repository(operation: "moving cloud", reason: String(describing: error)))
        }
        store.publish(StoreChange(fork: .cloud, commit: commit, kind: .committed))
    }

    private func refreshAheadBehind(_ repository: Repository) throws(ExchangeError) {
        do {
            guard let main = try repository.resolveReference("refs/heads/main"),
                let cloud = try repository.resolveReference("refs/heads/cloud")
            else { return }
            let (ahead, behind) = try repository.aheadBehind(main, cloud)
            update {
                $0.ahead = ahead
                $0.behind = behind
            }
        } catch {
            throw classify(error)
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
        return RemoteOptions(credential: credential, trust: trust) { [weak self] statistics in
            self?.publish(.progress(TransferProgress(
                direction: statistics.direction == .fetch ? .fetch : .push,
                objects: statistics.objects, totalObjects: statistics.totalObjects, bytes: statistics.bytes)))
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
        if case .unknownModelVersion(let found, let known, let commit) = error {
            return .halted(found: found, known: known, commit: commit)
        }
        return .store(error)
    }

    /// Sorts a libgit2 failure into what the app can act on, with secrets scrubbed.
    func classify(_ error: GitError) -> ExchangeError {
        var reason = error.message
        for secret in remote.credentials?.secrets ?? [] where !secret.isEmpty {
            reason = reason.replacingOccurrences(of: secret, with: "(hidden)")
        }
        reason = Remote.redacted(reason)
        let lower = reason.lowercased()
        let url = remote.url
        switch error.code {
        case .authentication: return .authenticationFailed(remote: url, reason: reason)
        case .certificate: return .serverNotTrusted(remote: url, reason: reason)
        default: break
        }
        let corrupt = [
            "corrupt", "bad object", "inflate", "zlib", "checksum", "invalid pack", "bad pack", "object not found",
            "no match for id", "missing object", "index-pack", "unpack-objects", "pack-objects died",
            "did not receive expected object",
        ]
        if corrupt.contains(where: lower.contains) {
            return .corruptData(remote: url, reason: reason)
        }
        let notRepository = [
            "404", "repository not found", "no such repository", "not a git repository",
            "does not appear to be a git repository", "repository not exported", "could not find repository",
            "is this a git repository",
        ]
        if notRepository.contains(where: lower.contains) {
            return .notARepository(remote: url, reason: reason)
        }
        let unreachable = ["failed to connect", "connection refused", "could not resolve", "timed out", "timeout", "network is unreachable", "failed to resolve address", "early eof", "connection reset", "broken pipe", "unexpected eof", "failed to send request", "failed to start ssh session", "ssh session", "error sending data"]
        if unreachable.contains(where: lower.contains) {
            return .offline(remote: url, reason: reason)
        }
        return .transport(remote: url, reason: reason)
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
