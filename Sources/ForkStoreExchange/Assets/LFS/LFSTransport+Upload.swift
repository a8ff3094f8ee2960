import ForkStore
import ForkStoreGit
import Foundation

extension LFSTransport {
    /// Sends those of `objects` the server lacks, reading each from `folder`, in batches of
    /// 100, several at a time (``LFSConcurrentTransfers``): a `PUT` of the whole file to the
    /// upload action's href (a stopped upload starts its object again), then the verify
    /// action when there is one; an action that expired before its turn is asked for again
    /// (``withFreshActions(_:for:actions:session:secrets:_:)``). Returns how many were sent; those the server has already are
    /// skipped. Objects not in `folder` are asked about too: a lazy replica edits records
    /// holding assets it never downloaded, which the server has; only one the server lacks as
    /// well is ``AssetTransferFailure/missingLocally(_:)``. A failure of one object (missing,
    /// refused by the server) lets the others go on and the first of them (in the order given)
    /// is thrown at the end. The bytes are hashed as they are sent: a local copy that does not
    /// hash to its id stops the upload with `StoreError.assetCorrupt` before its last piece
    /// leaves, and is removed from `folder`.
    package func upload(_ objects: [AssetObject], from folder: AssetFolder, progress: (AssetTransferCount) -> Void) throws -> Int {
        var transfers = LFSConcurrentTransfers(client: client)
        let session = try transfers.first()
        var secrets = secrets()
        var firstFailure: AssetTransferFailure?
        var sent = 0
        let asked = Self.distinct(objects)
        for start in stride(from: 0, to: asked.count, by: LFSBatchRequest.maximumObjects) {
            let batch = Array(asked[start..<min(start + LFSBatchRequest.maximumObjects, asked.count)])
            let answer = try self.batch(.upload, batch, session: session, secrets: secrets)
            var failures: [Int: AssetTransferFailure] = [:]
            var moves: [(index: Int, upload: LFSAction, verify: LFSAction?)] = []
            for (index, object) in batch.enumerated() {
                switch answer.objects[object.id] ?? .refused(reason: "the server's answer does not mention it") {
                case .actions(let actions):
                    guard let upload = actions["upload"] else { continue }  // the server has it
                    guard folder.contains(object.id, size: object.size) else {
                        failures[index] = .missingLocally(object.id)
                        continue
                    }
                    secrets.add(upload)
                    if let verify = actions["verify"] { secrets.add(verify) }
                    moves.append((index, upload, actions["verify"]))
                case .error(let code, let message):
                    failures[index] = Self.objectFailure(object.id, code: code, message: secrets.scrubbed(message), download: false)
                case .refused(let reason):
                    failures[index] = .refused(object.id, reason: reason)
                }
            }
            let known = secrets
            let actions = Dictionary(moves.map { (batch[$0.index].id, ($0.upload, $0.verify)) }, uniquingKeysWith: { first, _ in first })
            let moved = try transfers.run(moves.map { batch[$0.index] }, transport: self, progress: progress) { transport, object, session, progress in
                guard let (upload, verify) = actions[object.id] else { return }
                let first = verify.map { ["upload": upload, "verify": $0] } ?? ["upload": upload]
                try transport.withFreshActions(.upload, for: object, actions: first, session: session, secrets: known) { actions, known in
                    guard let upload = actions["upload"] else { return }
                    try transport.put(object, from: folder, action: upload, session: session, secrets: known, progress: progress)
                    if let verify = actions["verify"] { try transport.verify(object, action: verify, session: session, secrets: known) }
                }
            }
            for (position, failure) in moved { failures[moves[position].index] = failure }
            sent += moves.count - moved.count
            if firstFailure == nil, let first = failures.min(by: { $0.key < $1.key }) { firstFailure = first.value }
        }
        if let firstFailure { throw firstFailure }
        return sent
    }

    /// Streams the object's file to the upload action's href.
    private func put(
        _ object: AssetObject, from folder: AssetFolder, action: LFSAction, session: HTTPSession, secrets: LFSSecrets,
        progress: (AssetTransferCount) -> Void
    ) throws {
        var extra: [HTTPHeader] = []
        if !action.headers.contains(where: { $0.name.lowercased() == "content-type" }),
            let type = HTTPHeader("Content-Type", "application/octet-stream")
        {
            extra.append(type)
        }
        let request = HTTPRequest(
            .put, action.href, headers: headers(for: action, adding: extra),
            body: .file(path: folder.path(of: object.id), size: object.size, id: object.id))
        let response: HTTPResponse
        var pace = LFSProgressPace()
        do {
            response = try perform(request, body: .collect(maximum: HTTPResponse.errorBodyLimit), session: session) { moved in
                if pace.report(moved.sent, of: object.size) { progress(AssetTransferCount(object: object, bytes: moved.sent)) }
            }
        } catch .localFile(let path, let code) where path == folder.path(of: object.id) && code == ENOENT {
            throw AssetTransferFailure.missingLocally(object.id)
        } catch .localFileCorrupt(_, let reason) {
            // A bit-rotted local copy must not become the server's: the PUT stopped before its
            // last piece, and the damaged bytes go, as verifying the asset would remove them.
            let removed = folder.removeIfDamaged(object.id, size: object.size)
            throw StoreError.assetCorrupt(id: object.id, reason: "the bytes here were not sent: \(reason)\(removed ? "; they were removed" : "")")
        } catch {
            throw transferFailure(error, at: action.href, secrets: secrets)
        }
        guard response.isSuccess else { throw actionFailure(object.id, response, at: action.href, secrets: secrets, download: false) }
    }

    /// Tells the server the upload is done (`{"oid", "size"}`); it checks the object.
    private func verify(_ object: AssetObject, action: LFSAction, session: HTTPSession, secrets: LFSSecrets) throws {
        let body = LFSBatchRequest.verifyBody(object)
        let extra = [HTTPHeader("Accept", LFSBatchRequest.mediaType), HTTPHeader("Content-Type", LFSBatchRequest.mediaType)]
            .compactMap { $0 }
        let request = HTTPRequest(.post, action.href, headers: headers(for: action, adding: extra), body: .bytes(body))
        let response: HTTPResponse
        do {
            response = try perform(request, body: .collect(maximum: HTTPResponse.errorBodyLimit), session: session)
        } catch {
            throw transferFailure(error, at: action.href, secrets: secrets)
        }
        guard response.isSuccess else {
            throw AssetTransferFailure.refused(
                object.id,
                reason: secrets.scrubbed("the server did not verify the upload: \(action.href.redacted) answered \(response.status)\(Self.serverMessage(response))"))
        }
    }
}

extension LFSBatchRequest {
    /// The body of a verify request: `{"oid": …, "size": …}`.
    static func verifyBody(_ object: AssetObject) -> [UInt8] {
        JSONValue.object([.init(key: "oid", value: .string(object.id.hex)), .init(key: "size", value: .number(String(object.size)))])
            .canonicalBytes
    }
}
