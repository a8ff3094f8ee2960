import ForkStore

/// What can stop a sync: a ``code`` to act on, and what failed and why. Messages name the
/// remote without credentials and never contain a secret.
///
/// Match the codes you act on in `catch`, as with `StoreError`; a code added in a later
/// version breaks no app. ``Exchange/sync()`` throws only this error, so a last `catch` has
/// it typed:
///
/// ```swift
/// do {
///     try await exchange.sync()
/// } catch ExchangeError.halted {
///     print("The remote holds data of a newer model version. Update the app.")
/// } catch {
///     print(error.isTransient ? "Will retry: \(error)" : "Sync failed: \(error)")
/// }
/// ```
///
/// A failure of the local store arrives as ``Code/store``, with the store's error in
/// ``storeError``. See <doc:SyncErrors> for every code.
public struct ExchangeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, to match on. Compare it (`error.code == .offline`) or match errors by
    /// it (`catch ExchangeError.offline`).
    public let code: Code
    /// What failed and why, in one or two sentences for a person, unescaped (``description``
    /// escapes it). Never match on its words; match on ``code``.
    public let message: String
    /// What the exchange was doing: `"fetch"` or `"push"` for a failed transfer, the store's
    /// `operation` for ``Code/store``; nil otherwise.
    public let operation: String?
    /// libgit2's error code, or the system's `errno`, when the store's error carries one
    /// (``Code/store``); nil otherwise.
    public let underlyingCode: Int32?
    /// The remote's URL, without credentials; for ``Code/invalidRemote``, the URL refused.
    public let remote: String?
    /// Why, as libgit2, the server, the app's check or the store said it: the part of
    /// ``message`` after the colon. For people, like ``message``.
    public let reason: String?
    /// The store's own error, for ``Code/store``.
    public let storeError: StoreError?
    /// The commit of a newer model version that halted the sync (``Code/halted``).
    public let commit: CommitID?
    /// The model version the remote's data carries (``Code/halted``).
    public let foundVersion: Int?
    /// The newest model version this app knows (``Code/halted``).
    public let supportedVersion: Int?
    /// How many times the push was tried (``Code/pushRejected``).
    public let attempts: Int?
    /// How long the sync waited for another sync of the store (``Code/busy``).
    public let waited: Duration?
    /// Which limit a fetch passed (``Code/tooLarge``).
    public let limit: IncomingLimit?
    /// The limit's value: bytes, or a number of objects (``Code/tooLarge``).
    public let maximum: Int?
    /// The size or count that passed the limit (``Code/tooLarge``).
    public let size: Int?
    /// What passed the limit: an object's id, an entry of the fetched pack, or the pack's
    /// header (``Code/tooLarge``).
    public let object: String?
    /// The asset that could not move (``Code/assetMissing``, ``Code/assetCorrupt``, and a
    /// ``Code/transport`` failure of one asset).
    public let asset: AssetID?
    /// The record that references ``asset``, when known (nil in a single-value store, and for
    /// ``Exchange/fetchAsset(_:)``, which is given the asset alone).
    public let recordID: String?
    /// Where the reference to ``asset`` is inside the record or value, as a JSON Pointer, when
    /// known.
    public let pointer: String?

    init(
        _ code: Code, _ message: String, operation: String? = nil, underlyingCode: Int32? = nil, remote: String? = nil,
        reason: String? = nil, storeError: StoreError? = nil, commit: CommitID? = nil, foundVersion: Int? = nil,
        supportedVersion: Int? = nil, attempts: Int? = nil, waited: Duration? = nil, limit: IncomingLimit? = nil,
        maximum: Int? = nil, size: Int? = nil, object: String? = nil, asset: AssetID? = nil, recordID: String? = nil,
        pointer: String? = nil
    ) {
        self.code = code
        self.message = message
        self.operation = operation
        self.underlyingCode = underlyingCode
        self.remote = remote
        self.reason = reason
        self.storeError = storeError
        self.commit = commit
        self.foundVersion = foundVersion
        self.supportedVersion = supportedVersion
        self.attempts = attempts
        self.waited = waited
        self.limit = limit
        self.maximum = maximum
        self.size = size
        self.object = object
        self.asset = asset
        self.recordID = recordID
        self.pointer = pointer
    }

    /// The same error, naming what the exchange was doing.
    func during(_ operation: String?) -> ExchangeError {
        guard let operation, self.operation == nil else { return self }
        return ExchangeError(
            code, message, operation: operation, underlyingCode: underlyingCode, remote: remote, reason: reason,
            storeError: storeError, commit: commit, foundVersion: foundVersion, supportedVersion: supportedVersion,
            attempts: attempts, waited: waited, limit: limit, maximum: maximum, size: size, object: object, asset: asset,
            recordID: recordID, pointer: pointer)
    }

    /// What failed and why (``message``), with any text that came from data or a remote
    /// escaped so it cannot steer a terminal (see `TerminalText`).
    public var description: String { TerminalText.escaping(message) }

    /// Whether retrying later may succeed without anyone changing anything.
    public var isTransient: Bool {
        [Code.offline, .pushRejected, .busy].contains(code)
    }
}

extension ExchangeError {
    /// What went wrong, as a stable name: a new code can be added in any version without
    /// breaking a `switch` or `catch` of an app.
    ///
    /// Match an error by its code in `catch` (`catch ExchangeError.offline`), or compare codes
    /// (`error.code == .offline`). Each code has a factory of the same name on
    /// ``ExchangeError`` that says what it means.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, for example `"offline"`: stable across versions, so it may be
        /// logged, stored or compared.
        public let rawValue: String

        /// The code with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's name.
        public var description: String { rawValue }

        /// Whether `error` is an ``ExchangeError`` with this code: what lets
        /// `catch ExchangeError.offline` match.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ExchangeError)?.code == code
        }

        /// ``ExchangeError/offline(remote:reason:)``.
        public static let offline = Code(rawValue: "offline")
        /// ``ExchangeError/authenticationFailed(remote:reason:)``.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// ``ExchangeError/accessDenied(remote:reason:)``.
        public static let accessDenied = Code(rawValue: "accessDenied")
        /// ``ExchangeError/serverNotTrusted(remote:reason:)``.
        public static let serverNotTrusted = Code(rawValue: "serverNotTrusted")
        /// ``ExchangeError/notARepository(remote:reason:)``.
        public static let notARepository = Code(rawValue: "notARepository")
        /// ``ExchangeError/corruptData(remote:reason:)``.
        public static let corruptData = Code(rawValue: "corruptData")
        /// ``ExchangeError/halted(found:known:commit:)``.
        public static let halted = Code(rawValue: "halted")
        /// ``ExchangeError/pushRejected(remote:attempts:reason:)``.
        public static let pushRejected = Code(rawValue: "pushRejected")
        /// ``ExchangeError/busy(waited:)``.
        public static let busy = Code(rawValue: "busy")
        /// ``ExchangeError/validationFailed(reason:)``.
        public static let validationFailed = Code(rawValue: "validationFailed")
        /// ``ExchangeError/invalidRemote(url:reason:)``.
        public static let invalidRemote = Code(rawValue: "invalidRemote")
        /// ``ExchangeError/tooLarge(remote:limit:maximum:size:object:)``.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// ``ExchangeError/store(_:)``.
        public static let store = Code(rawValue: "store")
        /// ``ExchangeError/transport(remote:reason:)``.
        public static let transport = Code(rawValue: "transport")
        /// ``ExchangeError/assetMissing(remote:asset:recordID:pointer:reason:)``.
        public static let assetMissing = Code(rawValue: "assetMissing")
        /// ``ExchangeError/assetCorrupt(remote:asset:reason:)``.
        public static let assetCorrupt = Code(rawValue: "assetCorrupt")

        /// Every code this version of the exchange throws (a test checks that none is missing
        /// and that their names differ).
        package static let all: [Code] = [
            offline, authenticationFailed, accessDenied, serverNotTrusted, notARepository, corruptData, halted,
            pushRejected, busy, validationFailed, invalidRemote, tooLarge, store, transport, assetMissing, assetCorrupt,
        ]
    }
}

// One block per code: the code under the error's own name, for `catch ExchangeError.offline`,
// and the factory that makes the error, with its message and the properties it sets.
extension ExchangeError {
    /// The code of ``offline(remote:reason:)``, for `catch ExchangeError.offline`.
    public static let offline = Code.offline
    /// The remote cannot be reached now (nothing listening, a missing path, a network
    /// failure). Local work goes on; syncing retries with backoff. Sets ``remote`` and
    /// ``reason``.
    public static func offline(remote: String, reason: String) -> ExchangeError {
        ExchangeError(
            .offline,
            "The remote \(remote) is unreachable: \(reason). Local changes are kept and will be pushed by the next successful sync.",
            remote: remote, reason: reason)
    }

    /// The code of ``authenticationFailed(remote:reason:)``, for `catch ExchangeError.authenticationFailed`.
    public static let authenticationFailed = Code.authenticationFailed
    /// The remote refused the credentials. Not retried. Sets ``remote`` and ``reason``.
    public static func authenticationFailed(remote: String, reason: String) -> ExchangeError {
        ExchangeError(
            .authenticationFailed,
            "The remote \(remote) refused the credentials: \(reason). Check the user name and password, token or key.",
            remote: remote, reason: reason)
    }

    /// The code of ``accessDenied(remote:reason:)``, for `catch ExchangeError.accessDenied`.
    public static let accessDenied = Code.accessDenied
    /// The remote knows who we are but does not let us do this (a read-only user's push, an
    /// HTTP 403). Not retried. Sets ``remote`` and ``reason``.
    public static func accessDenied(remote: String, reason: String) -> ExchangeError {
        ExchangeError(
            .accessDenied,
            "The remote \(remote) does not allow this: \(reason). Ask its administrator for access; local changes are kept.",
            remote: remote, reason: reason)
    }

    /// The code of ``serverNotTrusted(remote:reason:)``, for `catch ExchangeError.serverNotTrusted`.
    public static let serverNotTrusted = Code.serverNotTrusted
    /// The server's certificate or host key was not trusted. Not retried. Sets ``remote`` and
    /// ``reason``.
    public static func serverNotTrusted(remote: String, reason: String) -> ExchangeError {
        ExchangeError(
            .serverNotTrusted, "The server of \(remote) is not trusted: \(reason). Check its certificate or ssh host key.",
            remote: remote, reason: reason)
    }

    /// The code of ``notARepository(remote:reason:)``, for `catch ExchangeError.notARepository`.
    public static let notARepository = Code.notARepository
    /// The remote answered but is not a git repository. Sets ``remote`` and ``reason``.
    public static func notARepository(remote: String, reason: String) -> ExchangeError {
        ExchangeError(.notARepository, "The remote \(remote) is not a git repository: \(reason).", remote: remote, reason: reason)
    }

    /// The code of ``corruptData(remote:reason:)``, for `catch ExchangeError.corruptData`.
    public static let corruptData = Code.corruptData
    /// The remote sent data that is damaged; nothing was merged. Sets ``remote`` and
    /// ``reason``.
    public static func corruptData(remote: String, reason: String) -> ExchangeError {
        ExchangeError(
            .corruptData, "The remote \(remote) sent damaged data: \(reason). Nothing was merged.", remote: remote, reason: reason)
    }

    /// The code of ``halted(found:known:commit:)``, for `catch ExchangeError.halted`.
    public static let halted = Code.halted
    /// The remote holds data of a newer model version: sync halts until the app is updated.
    /// Sets ``foundVersion``, ``supportedVersion`` (the newest version known) and ``commit``.
    public static func halted(found: Int, known: Int, commit: CommitID) -> ExchangeError {
        ExchangeError(
            .halted,
            "Sync halted: the remote holds data of model version \(found) (commit \(commit.short)), but this app knows model version \(known). Update the app to sync again; local work goes on.",
            commit: commit, foundVersion: found, supportedVersion: known)
    }

    /// The code of ``pushRejected(remote:attempts:reason:)``, for `catch ExchangeError.pushRejected`.
    public static let pushRejected = Code.pushRejected
    /// The push kept losing races with other writers. Sets ``remote``, ``attempts`` and
    /// ``reason``.
    public static func pushRejected(remote: String, attempts: Int, reason: String) -> ExchangeError {
        ExchangeError(
            .pushRejected, "The push to \(remote) was rejected \(attempts) times: \(reason).", remote: remote, reason: reason,
            attempts: attempts)
    }

    /// The code of ``busy(waited:)``, for `catch ExchangeError.busy`.
    public static let busy = Code.busy
    /// Another sync of the same store (in this process or another) kept running for longer
    /// than ``ExchangeOptions/busyTimeout``, which this one waited; nothing was changed.
    /// Syncing again later succeeds. Sets ``waited``.
    public static func busy(waited: Duration) -> ExchangeError {
        let wait = waited < .seconds(1) ? "\(Int(waited.seconds * 1000)) ms" : "\(Int(waited.seconds.rounded())) s"
        return ExchangeError(
            .busy,
            "Another sync of this store is running; this one waited \(wait) for it to finish and gave up. Nothing was changed; sync again later.",
            waited: waited)
    }

    /// The code of ``validationFailed(reason:)``, for `catch ExchangeError.validationFailed`.
    public static let validationFailed = Code.validationFailed
    /// The app's validation refused the push. Sets ``reason`` (what it threw, described).
    public static func validationFailed(reason: String) -> ExchangeError {
        ExchangeError(.validationFailed, "The app refused the push: \(reason).", reason: reason)
    }

    /// The code of ``invalidRemote(url:reason:)``, for `catch ExchangeError.invalidRemote`.
    public static let invalidRemote = Code.invalidRemote
    /// The URL is not usable. Sets ``remote`` (the URL, without credentials) and ``reason``.
    public static func invalidRemote(url: String, reason: String) -> ExchangeError {
        ExchangeError(.invalidRemote, "The remote '\(url)' cannot be used: \(reason).", remote: url, reason: reason)
    }

    /// The code of ``tooLarge(remote:limit:maximum:size:object:)``, for `catch ExchangeError.tooLarge`.
    public static let tooLarge = Code.tooLarge
    /// The remote would bring more than the exchange takes: an object larger than
    /// ``ExchangeOptions/maximumObjectSize``, more than ``ExchangeOptions/maximumFetchSize``
    /// bytes or more than ``ExchangeOptions/maximumObjectCount`` objects in one fetch. Refused
    /// from the sizes and counts the data declares, before memory is taken for it; nothing was
    /// merged or kept. `object` names what broke the limit (an object's id, an entry of the
    /// fetched pack, or the pack's header); `size` is its size, what the fetch had reached, or
    /// the number of objects. Not retried: the remote has to change, or the limit. Sets
    /// ``remote``, ``limit``, ``maximum``, ``size`` and ``object``.
    public static func tooLarge(remote: String, limit: IncomingLimit, maximum: Int, size: Int, object: String) -> ExchangeError {
        let message =
            switch limit {
            case .objectSize:
                "The remote \(remote) sent \(object) of \(size) bytes, over the largest object a sync takes (\(maximum) bytes, ExchangeOptions.maximumObjectSize). Nothing was merged."
            case .fetchSize:
                "The remote \(remote) sent more than a sync takes in one fetch (\(maximum) bytes, ExchangeOptions.maximumFetchSize): \(size) bytes at \(object). Nothing was merged."
            case .objectCount:
                "The remote \(remote) sent more objects than a sync takes in one fetch (\(maximum), ExchangeOptions.maximumObjectCount): \(size) objects, \(object). Nothing was merged."
            }
        return ExchangeError(.tooLarge, message, remote: remote, limit: limit, maximum: maximum, size: size, object: object)
    }

    /// The code of ``store(_:)``, for `catch ExchangeError.store`.
    public static let store = Code.store
    /// The local store failed. Sets ``storeError``, and ``operation``, ``underlyingCode`` and
    /// ``message`` as the store's error has them.
    public static func store(_ error: StoreError) -> ExchangeError {
        ExchangeError(
            .store, error.message, operation: error.operation, underlyingCode: error.underlyingCode, reason: error.reason,
            storeError: error)
    }

    /// The code of ``transport(remote:reason:)``, for `catch ExchangeError.transport`.
    public static let transport = Code.transport
    /// Another transport failure. Sets ``remote`` and ``reason``.
    public static func transport(remote: String, reason: String) -> ExchangeError {
        ExchangeError(.transport, "Syncing with \(remote) failed: \(reason).", remote: remote, reason: reason)
    }

    /// The code of ``assetMissing(remote:asset:recordID:pointer:reason:)``, for `catch ExchangeError.assetMissing`.
    public static let assetMissing = Code.assetMissing
    /// An asset a record references is not where it must be: a download found the remote
    /// without it, or a push found it neither in this store nor on the remote (the commits that
    /// reference it were not pushed: the remote never holds a commit whose assets it lacks).
    /// Not retried. Sets ``remote``, ``asset``, ``reason``, and ``recordID`` and ``pointer``
    /// when known.
    public static func assetMissing(
        remote: String, asset: AssetID, recordID: String? = nil, pointer: String? = nil, reason: String
    ) -> ExchangeError {
        ExchangeError(
            .assetMissing, "Asset \(asset)\(place(recordID, pointer)) is missing: \(reason).", remote: remote, reason: reason,
            asset: asset, recordID: recordID, pointer: pointer)
    }

    /// The code of ``assetCorrupt(remote:asset:reason:)``, for `catch ExchangeError.assetCorrupt`.
    public static let assetCorrupt = Code.assetCorrupt
    /// The remote holds or sent bytes for an asset that do not hash to its id, or are too
    /// many or too few: they were refused and nothing was kept. Not retried. Sets ``remote``,
    /// ``asset`` and ``reason``.
    public static func assetCorrupt(remote: String, asset: AssetID, reason: String) -> ExchangeError {
        ExchangeError(
            .assetCorrupt, "The remote \(remote) holds damaged bytes for asset \(asset): \(reason). They were refused; nothing was kept.",
            remote: remote, reason: reason, asset: asset)
    }

    /// ` (record 'ID' at /pointer)`, or empty when neither is known.
    private static func place(_ recordID: String?, _ pointer: String?) -> String {
        let at = pointer.flatMap { $0.isEmpty ? nil : " at \($0)" } ?? ""
        if let recordID { return " (record '\(recordID)'\(at))" }
        return at.isEmpty ? "" : " (the value\(at))"
    }
}

/// Which of the exchange's limits on what a fetch brings was passed
/// (``ExchangeError/tooLarge(remote:limit:maximum:size:object:)``).
public enum IncomingLimit: Sendable, Hashable {
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
