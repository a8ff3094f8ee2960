import ForkStoreGit

// The words of the engine's exchange API (StoreEngine+Exchange.swift), named in ForkStore so
// that the exchange (ForkStoreExchange) reaches the git layer through the engine alone and
// never imports it. They are defined in ForkStoreGit, where transfers run; package only.

/// Why a fetch or a push failed, sorted where the failure was received; see
/// ``StoreEngine/fetchRemoteMain(from:localPath:options:)`` and
/// ``StoreEngine/pushMain(_:to:localPath:options:)``.
package typealias TransferFailure = ForkStoreGit.TransferFailure
/// What a push of `main` came to: accepted, behind (fetch and try again), or rejected.
package typealias PushOutcome = ForkStoreGit.PushOutcome
/// Credentials, trust, timeouts and progress for one transfer.
package typealias RemoteOptions = ForkStoreGit.RemoteOptions
/// How to authenticate to a remote.
package typealias RemoteCredential = ForkStoreGit.RemoteCredential
/// How to treat the server's TLS certificate or ssh host key.
package typealias TrustPolicy = ForkStoreGit.TrustPolicy
/// Connect and read/write timeouts of a transfer.
package typealias NetworkTimeouts = ForkStoreGit.NetworkTimeouts
/// Objects and bytes moved so far by a transfer.
package typealias TransferStatistics = ForkStoreGit.TransferStatistics
/// The most a fetch may bring, checked before memory is taken for it.
package typealias IncomingLimits = ForkStoreGit.IncomingLimits
/// A fetch refused for bringing more than its ``IncomingLimits`` allow.
package typealias LimitExceeded = ForkStoreGit.LimitExceeded

extension StoreEngine {
    /// The largest object a fetch may bring when the exchange sets none: the largest record
    /// this store takes (``StoreOptions/maximumRecordSize``), but at least 1 MB, so that trees
    /// and commits have room whatever size records have.
    package var defaultMaximumIncomingObjectSize: Int { max(options.maximumRecordSize, 1_000_000) }
}
