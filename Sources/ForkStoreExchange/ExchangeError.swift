import ForkStore

/// What can stop a sync. Messages name the remote without credentials and never contain a
/// secret.
public enum ExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The remote cannot be reached now (nothing listening, a missing path, a network
    /// failure). Local work goes on; syncing retries with backoff.
    case offline(remote: String, reason: String)
    /// The remote refused the credentials. Not retried.
    case authenticationFailed(remote: String, reason: String)
    /// The remote knows who we are but does not let us do this (a read-only user's push, an
    /// HTTP 403). Not retried.
    case accessDenied(remote: String, reason: String)
    /// The server's certificate or host key was not trusted. Not retried.
    case serverNotTrusted(remote: String, reason: String)
    /// The remote answered but is not a git repository.
    case notARepository(remote: String, reason: String)
    /// The remote sent data that is damaged; nothing was merged.
    case corruptData(remote: String, reason: String)
    /// The remote holds data of a newer model version: sync halts until the app is updated.
    case halted(found: Int, known: Int, commit: CommitID)
    /// The push kept losing races with other writers.
    case pushRejected(remote: String, attempts: Int, reason: String)
    /// Another sync of the same store (in this process or another) kept running for longer
    /// than ``ExchangeOptions/busyTimeout``, which this one waited; nothing was changed.
    /// Syncing again later succeeds.
    case busy(waited: Duration)
    /// The app's validation refused the push.
    case validationFailed(reason: String)
    /// The URL is not usable.
    case invalidRemote(url: String, reason: String)
    /// The remote would bring more than the exchange takes: an object larger than
    /// ``ExchangeOptions/maximumObjectSize``, more than ``ExchangeOptions/maximumFetchSize``
    /// bytes or more than ``ExchangeOptions/maximumObjectCount`` objects in one fetch. Refused
    /// from the sizes and counts the data declares, before memory is taken for it; nothing was
    /// merged or kept. `object` names what broke the limit (an object's id, an entry of the
    /// fetched pack, or the pack's header); `size` is its size, what the fetch had reached, or
    /// the number of objects. Not retried: the remote has to change, or the limit.
    case tooLarge(remote: String, limit: IncomingLimit, maximum: Int, size: Int, object: String)
    /// The local store failed.
    case store(StoreError)
    /// Another transport failure.
    case transport(remote: String, reason: String)

    /// What failed and why, with any text that came from data or a remote escaped so it cannot
    /// steer a terminal (see `TerminalText`).
    public var description: String { TerminalText.escaping(message) }

    private var message: String {
        switch self {
        case .offline(let remote, let reason):
            "The remote \(remote) is unreachable: \(reason). Local changes are kept and will be pushed by the next successful sync."
        case .authenticationFailed(let remote, let reason):
            "The remote \(remote) refused the credentials: \(reason). Check the user name and password, token or key."
        case .accessDenied(let remote, let reason):
            "The remote \(remote) does not allow this: \(reason). Ask its administrator for access; local changes are kept."
        case .serverNotTrusted(let remote, let reason):
            "The server of \(remote) is not trusted: \(reason). Check its certificate or ssh host key."
        case .notARepository(let remote, let reason):
            "The remote \(remote) is not a git repository: \(reason)."
        case .corruptData(let remote, let reason):
            "The remote \(remote) sent damaged data: \(reason). Nothing was merged."
        case .halted(let found, let known, let commit):
            "Sync halted: the remote holds data of model version \(found) (commit \(commit.short)), but this app knows model version \(known). Update the app to sync again; local work goes on."
        case .pushRejected(let remote, let attempts, let reason):
            "The push to \(remote) was rejected \(attempts) times: \(reason)."
        case .busy(let waited):
            "Another sync of this store is running; this one waited \(waited < .seconds(1) ? "\(Int(waited.seconds * 1000)) ms" : "\(Int(waited.seconds.rounded())) s") for it to finish and gave up. Nothing was changed; sync again later."
        case .validationFailed(let reason):
            "The app refused the push: \(reason)."
        case .invalidRemote(let url, let reason):
            "The remote '\(url)' cannot be used: \(reason)."
        case .tooLarge(let remote, .objectSize, let maximum, let size, let object):
            "The remote \(remote) sent \(object) of \(size) bytes, over the largest object a sync takes (\(maximum) bytes, ExchangeOptions.maximumObjectSize). Nothing was merged."
        case .tooLarge(let remote, .fetchSize, let maximum, let size, let object):
            "The remote \(remote) sent more than a sync takes in one fetch (\(maximum) bytes, ExchangeOptions.maximumFetchSize): \(size) bytes at \(object). Nothing was merged."
        case .tooLarge(let remote, .objectCount, let maximum, let size, let object):
            "The remote \(remote) sent more objects than a sync takes in one fetch (\(maximum), ExchangeOptions.maximumObjectCount): \(size) objects, \(object). Nothing was merged."
        case .store(let error):
            error.description
        case .transport(let remote, let reason):
            "Syncing with \(remote) failed: \(reason)."
        }
    }

    /// Whether retrying later may succeed without anyone changing anything.
    public var isTransient: Bool {
        switch self {
        case .offline, .pushRejected, .busy: true
        default: false
        }
    }
}

/// Which of the exchange's limits on what a fetch brings was passed
/// (``ExchangeError/tooLarge(remote:limit:maximum:size:object:)``).
public enum IncomingLimit: Sendable, Equatable {
    /// ``ExchangeOptions/maximumObjectSize``: one object was larger.
    case objectSize
    /// ``ExchangeOptions/maximumFetchSize``: the fetch as a whole brought more bytes.
    case fetchSize
    /// ``ExchangeOptions/maximumObjectCount``: the fetch as a whole brought more objects.
    case objectCount

    init(_ limit: LimitExceeded.Limit) {
        self =
            switch limit {
            case .objectSize: .objectSize
            case .fetchSize: .fetchSize
            case .objectCount: .objectCount
            }
    }
}
