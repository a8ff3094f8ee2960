import ForkStore
import ForkStoreGit
import Foundation

/// Actions that run out: a server's actions carry short-lived tokens or pre-signed URLs
/// (giftless: a JWT of 60 seconds; S3 and GCS: signed URLs), while a batch of 100 objects
/// moving 8 at a time can take longer than that. An object whose action expired before its
/// turn, or whose href answered 401 or 403, is asked about again in a batch of its own, as
/// git-lfs does, rather than failing the whole transfer.
extension LFSTransport {
    /// How many actions one object is given: the batch's, then up to two fresh ones.
    static let actionAttempts = 3
    /// How long before its expiry an action is no longer started: a request takes a moment
    /// to reach the server (git-lfs allows 5 seconds too).
    static let expiryMargin: TimeInterval = 5

    /// Runs `move` with `actions` (the batch answer's for `object`), asking the server again
    /// about `object` alone when `primary` (`download` or `upload`) has expired or is about
    /// to, or when `move` fails with a 401 or 403 of an action's href. A fresh answer with no
    /// `upload` action means the server has the object now: nothing is left to do. The last
    /// attempt's failure is thrown as it is.
    func withFreshActions(
        _ operation: LFSOperation, for object: AssetObject, actions first: [String: LFSAction], session: HTTPSession,
        secrets: LFSSecrets, _ move: ([String: LFSAction], LFSSecrets) throws -> Void
    ) throws {
        let primary = operation == .download ? "download" : "upload"
        var actions = first, known = secrets
        for attempt in 1...Self.actionAttempts {
            let last = attempt == Self.actionAttempts
            guard let action = actions[primary] else { return }
            if !last, action.expires(within: Self.expiryMargin) {
                (actions, known) = try freshActions(operation, for: object, session: session, secrets: known)
                continue
            }
            do {
                return try move(actions, known)
            } catch let failure as TransferFailure where !last && failure.refusesCredentials {
                (actions, known) = try freshActions(operation, for: object, session: session, secrets: known)
            }
        }
    }

    /// The server's actions for `object` alone, with their secrets added to `secrets`.
    private func freshActions(
        _ operation: LFSOperation, for object: AssetObject, session: HTTPSession, secrets: LFSSecrets
    ) throws -> ([String: LFSAction], LFSSecrets) {
        let answer: LFSObjectAnswer
        do {
            answer = try batch(operation, [object], session: session, secrets: secrets).objects[object.id]
                ?? .refused(reason: "the server's answer does not mention it")
        } catch let refused as LFSObjectsNotServed {
            answer = .error(code: refused.status, message: refused.message)
        }
        switch answer {
        case .actions(let actions):
            var known = secrets
            for action in actions.values { known.add(action) }
            return (actions, known)
        case .error(let code, let message):
            throw Self.objectFailure(object.id, code: code, message: secrets.scrubbed(message), download: operation == .download)
        case .refused(let reason):
            throw AssetTransferFailure.refused(object.id, reason: reason)
        }
    }
}

extension TransferFailure {
    /// A 401 or 403: what an expired token or signed URL answers.
    var refusesCredentials: Bool {
        switch self {
        case .authentication, .accessDenied: true
        default: false
        }
    }
}
