import ForkStore
import Foundation

/// What the exchange is doing.
public enum ExchangeState: Sendable, Equatable {
    /// Not syncing; the last sync succeeded (or none ran yet).
    case idle
    /// A sync is running.
    case syncing
    /// The remote is unreachable; retrying with backoff.
    case offline
    /// Halted on data of an unknown model version; needs an app update.
    case halted(found: Int, known: Int)
    /// Stopped on an error that retrying will not fix (credentials, trust, a bad remote).
    case failed
}

/// A snapshot of the exchange.
public struct ExchangeStatus: Sendable, Equatable {
    /// What the exchange is doing.
    public var state: ExchangeState = .idle
    /// Commits on `main` not yet on the remote, as of the last sync.
    public var ahead = 0
    /// Commits on the remote (`cloud`) not yet merged into `main`.
    public var behind = 0
    /// The error of the last sync, if it failed.
    public var lastError: ExchangeError?
    /// When a sync last succeeded.
    public var lastSuccess: Date?
    /// When this exchange last compacted the store's history (``ExchangeOptions/compactionInterval``).
    public var lastCompaction: Date?
    /// Whether the remote refuses to have its `main` replaced by a compacted history (a server
    /// that refuses non-fast-forward updates, such as `receive.denyNonFastForwards` or a
    /// protected branch), as a sync found: syncs then keep `main` on the remote's history and
    /// do not compact (see <doc:Checkpoints>). The store remembers it for this remote's URL.
    public var remoteRefusesHistoryReplacement = false
    /// The fetch the last sync refused, kept for inspection until the next sync removes it;
    /// nil when the last sync kept none.
    public var quarantine: QuarantinedFetch?
    /// Assets still to move, with how far each has come: what the running sync uploads or
    /// downloads, what ``Exchange/fetchAsset(_:)`` brings, and what a failed sync left (the
    /// next sync tries again). An asset leaves the list once it has moved.
    public var pendingTransfers: [AssetTransferProgress] { syncTransfers + fetchTransfers }

    /// The transfers of the last or running sync, replaced by each of its phases.
    var syncTransfers: [AssetTransferProgress] = []
    /// The transfers of ``Exchange/fetchAssets(_:)`` calls in progress.
    var fetchTransfers: [AssetTransferProgress] = []
}

/// A fetch a sync refused, kept for inspection in the store's transfer repository until the
/// next sync, which removes it whatever it fetches: the transfer repository holds at most one
/// fetch. `git --git-dir <repository> log <reference>` shows it.
public struct QuarantinedFetch: Sendable, Equatable {
    /// The head of the refused fetch.
    public var head: CommitID
    /// The transfer repository's folder (a bare repository inside the store's folder).
    public var repository: String
    /// The reference that names the head there.
    public var reference: String
}

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    /// Commits fetched that `main` did not have.
    public var fetchedCommits = 0
    /// What the last merge of `cloud` into `main` did; nil when there was nothing to merge.
    public var merge: MergeOutcome?
    /// Conflicts decided by every merge of this sync (a sync that lost a push race merges
    /// again).
    public var conflicts: [MergeConflict] = []
    /// Commits pushed.
    public var pushedCommits = 0
    /// How many push attempts it took (more than one after losing races).
    public var pushAttempts = 0
    /// Assets uploaded before the push: those the pushed commits reference that the remote
    /// lacked.
    public var uploadedAssets = 0
    /// Whether this sync moved `main` from a compacted history back onto the remote's, its
    /// changes carried over, because the remote refuses to have its `main` replaced
    /// (``ExchangeStatus/remoteRefusesHistoryReplacement``).
    public var carriedOntoRemoteHistory = false
    /// The checkpoint this sync compacted the store's history to
    /// (``ExchangeOptions/compactionInterval``); nil when it did not compact.
    public var checkpoint: CommitID?
    /// Assets downloaded by the exchange's download policy (``ExchangeOptions/assetDownloads``);
    /// always 0 when it is lazy.
    public var downloadedAssets = 0
    /// Why assets the download policy wanted could not be downloaded. They do not fail the
    /// sync, whose commits were exchanged; the next sync tries them again.
    public var assetErrors: [ExchangeError] = []
}

/// One event on ``Exchange/events()``.
public enum ExchangeEvent: Sendable, Equatable {
    /// The state changed.
    case state(ExchangeState)
    /// Objects and bytes moved so far by the current fetch or push: at most ten times a
    /// second, and once when every object has moved.
    case progress(TransferProgress)
    /// Fetched commits checked so far (FORMAT.md §8), before any of them reaches `cloud` or
    /// `main`; comes after the fetch's ``progress(_:)`` and before ``finished(_:)``.
    case checkProgress(CheckProgress)
    /// Records written into the query index so far, once the sync took what it fetched into
    /// `main`, for a store object whose index is in use (a query ran, or `refreshIndex`): the
    /// sync brings it to the new head before it returns, so that a query then answers at once.
    /// Comes after ``checkProgress(_:)`` and before ``finished(_:)``.
    case indexProgress(IndexProgress)
    /// Bytes of an asset moved so far by an upload before a push, a download of the policy,
    /// or ``Exchange/fetchAsset(_:)``.
    case assetProgress(AssetTransferProgress)
    /// The ahead/behind counts changed.
    case aheadBehind(ahead: Int, behind: Int)
    /// A sync succeeded.
    case finished(SyncReport)
    /// A sync failed.
    case error(ExchangeError)
}

/// Objects and bytes moved by a fetch or a push.
public struct TransferProgress: Sendable, Equatable {
    /// Whether objects are coming in or going out.
    public enum Direction: Sendable, Equatable {
        /// Receiving from the remote.
        case fetch
        /// Sending to the remote.
        case push
    }
    /// Fetch or push.
    public var direction: Direction
    /// Objects moved so far.
    public var objects: Int
    /// Objects to move in all (0 while unknown).
    public var totalObjects: Int
    /// Bytes moved so far.
    public var bytes: Int
}

/// How far the check of fetched commits has come: the commits whose trees were walked, of all
/// the fetch brought. Their record files are checked as the walk meets them, or, while the
/// fetched blobs are still being checked ahead, once that is done; the report of every commit
/// comes when everything is checked.
public struct CheckProgress: Sendable, Equatable {
    /// Commits walked so far.
    public var commits: Int
    /// Commits the fetch brought that the store lacked.
    public var totalCommits: Int
}

/// How far the query index has come in taking in what a sync landed on `main`: the records
/// written so far, of all that changed since the index was last brought forward
/// (``ExchangeEvent/indexProgress(_:)``). Reported at most ten times a second, and once when
/// every record is written (none when the change only removed records): queries then answer
/// from the new head without waiting.
public struct IndexProgress: Sendable, Equatable {
    /// Records written so far.
    public var records: Int
    /// Records added or changed between the head the index was at and `main`'s new head (all
    /// of them when the index is built anew).
    public var totalRecords: Int
}
