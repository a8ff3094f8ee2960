import ForkStore
import ForkStoreGit
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LFSTransport {
    /// Brings `objects` into `folder`, in batches of 100, several at a time
    /// (``LFSConcurrentTransfers``); those already there are skipped. An object whose action
    /// expired before its turn is asked about again (``withFreshActions(_:for:actions:session:secrets:_:)``). Each goes to its partial
    /// file, resuming from what an earlier download left there when the server honours
    /// `Range`, never past its size, and is moved into place only when it hashes to its id. A
    /// failure of one object (missing on the server, corrupt, refused) lets the others go on
    /// and the first of them (in the order given) is thrown at the end; its partial file is
    /// removed unless the connection broke, which a later download resumes from.
    package func download(_ objects: [AssetObject], into folder: AssetFolder, progress: (AssetTransferCount) -> Void) throws {
        let wanted = Self.distinct(objects).filter { !folder.contains($0.id, size: $0.size) }
        guard !wanted.isEmpty else { return }
        var transfers = LFSConcurrentTransfers(client: client)
        let session = try transfers.first()
        var secrets = secrets()
        var firstFailure: AssetTransferFailure?
        for start in stride(from: 0, to: wanted.count, by: LFSBatchRequest.maximumObjects) {
            let batch = Array(wanted[start..<min(start + LFSBatchRequest.maximumObjects, wanted.count)])
            let answers = try downloadAnswers(batch, session: session, secrets: secrets)
            var failures: [Int: AssetTransferFailure] = [:]
            var moves: [(index: Int, action: LFSAction)] = []
            for (index, object) in batch.enumerated() {
                switch answers[object.id] ?? .refused(reason: "the server's answer does not mention it") {
                case .actions(let actions):
                    guard let action = actions["download"] else {
                        failures[index] = .refused(object.id, reason: "the server gave no download action")
                        continue
                    }
                    secrets.add(action)
                    moves.append((index, action))
                case .error(let code, let message):
                    failures[index] = Self.objectFailure(object.id, code: code, message: secrets.scrubbed(message), download: true)
                case .refused(let reason):
                    failures[index] = .refused(object.id, reason: reason)
                }
            }
            let known = secrets
            let actions = Dictionary(moves.map { (batch[$0.index].id, $0.action) }, uniquingKeysWith: { first, _ in first })
            let moved = try transfers.run(moves.map { batch[$0.index] }, transport: self, progress: progress) { transport, object, session, progress in
                guard let action = actions[object.id] else { return }
                try transport.withFreshActions(.download, for: object, actions: ["download": action], session: session, secrets: known) { actions, known in
                    guard let action = actions["download"] else { return }
                    try transport.fetch(object, into: folder, action: action, session: session, secrets: known, progress: progress)
                }
            }
            for (position, failure) in moved { failures[moves[position].index] = failure }
            if firstFailure == nil, let first = failures.min(by: { $0.key < $1.key }) { firstFailure = first.value }
        }
        if let firstFailure { throw firstFailure }
    }

    /// The batch answers about `batch`: a 404 of the whole request answers each object with
    /// 404; a 422 asks again about each object alone when there are several (the others may
    /// be fine), and answers the one object with 422 otherwise.
    private func downloadAnswers(
        _ batch: [AssetObject], session: HTTPSession, secrets: LFSSecrets
    ) throws -> [AssetID: LFSObjectAnswer] {
        do {
            return try self.batch(.download, batch, session: session, secrets: secrets).objects
        } catch let refused as LFSObjectsNotServed {
            guard refused.status == 422, batch.count > 1 else {
                return Dictionary(batch.map { ($0.id, .error(code: refused.status, message: refused.message)) }, uniquingKeysWith: { first, _ in first })
            }
            var answers: [AssetID: LFSObjectAnswer] = [:]
            for object in batch {
                answers.merge(try downloadAnswers([object], session: session, secrets: secrets)) { first, _ in first }
            }
            return answers
        }
    }

    /// Downloads one object into its partial file and commits it; a server that answers a
    /// resumed request with 416 gets one more request for the whole object.
    private func fetch(
        _ object: AssetObject, into folder: AssetFolder, action: LFSAction, session: HTTPSession, secrets: LFSSecrets,
        progress: (AssetTransferCount) -> Void
    ) throws {
        let partial = folder.partialPath(of: object.id)
        for attempt in 1...2 {
            // Locked until the object is in place: another download of it (a fetch while a
            // sync downloads, another process) waits, then finds it there.
            let descriptor = try folder.openLockedPartial(partial)
            defer { close(descriptor) }
            if folder.contains(object.id, size: object.size) {
                unlink(partial)  // this download's own empty file
                progress(AssetTransferCount(object: object, bytes: object.size))
                return
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw Self.fileFailure(path: partial, errno: errno) }
            var have = Int(info.st_size)
            if have > object.size || attempt > 1 {
                guard ftruncate(descriptor, 0) == 0 else { throw Self.fileFailure(path: partial, errno: errno) }
                have = 0
            }
            if have == object.size, object.size > 0 {
                // A download that stopped after its last byte: only the check is left. Bytes
                // that do not hash are removed by the check, and fetched again.
                do {
                    try commit(object, partial: partial, folder: folder)
                    progress(AssetTransferCount(object: object, bytes: object.size))
                    return
                } catch is AssetTransferFailure {
                    continue
                }
            }
            var extra: [HTTPHeader] = []
            if have > 0, let range = HTTPHeader("Range", "bytes=\(have)-") { extra.append(range) }
            var request = HTTPRequest(.get, action.href, headers: headers(for: action, adding: extra))
            // The bytes are hashed before they are kept, so a redirect to storage elsewhere
            // (GitLab's object storage) is followed, with the Range alone.
            request.elsewhereHeaders = extra
            let response: HTTPResponse
            var pace = LFSProgressPace()
            do {
                response = try perform(
                    request, body: .resume(descriptor: descriptor, path: partial, from: have, size: object.size), session: session
                ) { moved in
                    let bytes = moved.resumedFrom + moved.received
                    if pace.report(bytes, of: object.size) { progress(AssetTransferCount(object: object, bytes: bytes)) }
                }
            } catch .tooLarge {
                unlink(partial)
                throw AssetTransferFailure.corrupt(object.id, reason: "the server sent more than its \(object.size) bytes")
            } catch .refusedResponse(let reason) {
                unlink(partial)
                throw AssetTransferFailure.refused(object.id, reason: secrets.scrubbed("the server sent \(reason)"))
            } catch {
                Self.removeIfEmpty(partial, descriptor: descriptor)
                throw transferFailure(error, at: action.href, secrets: secrets)
            }
            if response.status == 416, have > 0, attempt == 1 { continue }
            guard response.isSuccess else {
                // The object's own failure ends its download; the whole transfer's (a 5xx, a
                // 401) leaves what came so far for the next one.
                let failure = actionFailure(object.id, response, at: action.href, secrets: secrets, download: true)
                if failure is AssetTransferFailure { unlink(partial) } else { Self.removeIfEmpty(partial, descriptor: descriptor) }
                throw failure
            }
            try commit(object, partial: partial, folder: folder)
            return
        }
        throw AssetTransferFailure.refused(object.id, reason: "the server answered 416 to a request for the whole object")
    }

    /// Moves a finished partial file into place if it hashes to the id (the folder removes it
    /// otherwise).
    private func commit(_ object: AssetObject, partial: String, folder: AssetFolder) throws {
        do {
            try folder.commit(partial, as: object.id, size: object.size)
        } catch {
            if error.code == .assetCorrupt { throw AssetTransferFailure.corrupt(object.id, reason: error.reason ?? error.message) }
            throw error
        }
    }
}

extension LFSTransport {
    /// Removes a partial file that holds nothing (made by this download), so a failure leaves
    /// no empty file behind.
    static func removeIfEmpty(_ partial: String, descriptor: Int32) {
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_size == 0 { unlink(partial) }
    }

    /// Each object once, in the order given.
    static func distinct(_ objects: [AssetObject]) -> [AssetObject] {
        var seen = Set<AssetID>()
        return objects.filter { seen.insert($0.id).inserted }
    }

    /// A batch answer's error for one object: 404 and 410 say the server does not have it; a
    /// download's 422 that what it has is not the object (giftless: "Object size does not
    /// match"), so it is corrupt there.
    static func objectFailure(_ id: AssetID, code: Int, message: String, download: Bool) -> AssetTransferFailure {
        if code == 404 || code == 410 { return .missingOnRemote(id) }
        let reason = "the server answered \(code) about it\(message.isEmpty ? "" : ": \(message)")"
        if code == 422, download { return .corrupt(id, reason: reason) }
        return .refused(id, reason: reason)
    }

    /// A failed status for an action's request: 401, 403 (once fresh actions were refused too)
    /// and 5xx fail the whole transfer; a 404 or 410 of a download says the object is missing;
    /// anything else refuses the object.
    func actionFailure(_ id: AssetID, _ response: HTTPResponse, at url: HTTPURL, secrets: LFSSecrets, download: Bool) -> any Error {
        let reason = secrets.scrubbed("\(url.redacted) answered \(response.status)\(Self.serverMessage(response))")
        switch response.status {
        case 401: return TransferFailure.authentication(reason: reason)
        case 403: return TransferFailure.accessDenied(reason: reason)
        case 404 where download, 410 where download: return AssetTransferFailure.missingOnRemote(id)
        case 500...: return TransferFailure.transport(reason: reason)
        default: return AssetTransferFailure.refused(id, reason: reason)
        }
    }
}
