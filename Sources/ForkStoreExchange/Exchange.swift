import Dispatch
import ForkStore
import Foundation
import ForkStoreLocks

/// Keeps a store in sync with one git remote.
///
/// One sync: fetch the remote's `main` into the `cloud` fork; check the model version of every
/// new commit, and **halt** if any is newer than the app knows (nothing merged, nothing
/// pushed, local work goes on); merge `cloud` into `main`; push `main`; if the push loses a
/// race, fetch, merge and push again, a bounded number of times with jittered backoff.
///
/// ```swift
/// let exchange = Exchange(store: store, remote: try Remote("https://git.example.com/notes.git",
///                                                    credentials: .userPassword(username: "me", password: token)))
/// let report = try await exchange.sync()
/// exchange.start(every: .seconds(60))      // and periodically, with backoff while offline
/// exchange.syncAfterChanges()              // and after local changes to main (debounced)
/// for await event in exchange.events() { … }
/// ```
///
/// Syncs run one at a time on the exchange's own thread, so the blocking network work never
/// occupies Swift's cooperative thread pool.
public final class Exchange: Sendable {
    /// The store kept in sync: its forks, history and merges. Read and write it through the
    /// `Store` or `RecordStore` you made the exchange with.
    public let store: any VersionedStore
    /// The remote it syncs with.
    public let remote: Remote
    /// Retries, backoff and hooks.
    public let options: ExchangeOptions

    private let queue = DispatchQueue(label: "ForkStore.Exchange")
    /// Where ``fetchAssets(_:)`` runs: a thread of its own, so a fetch waits for no sync.
    let assetQueue = DispatchQueue(label: "ForkStore.Exchange.assets")
    private let hub = EventHub<ExchangeEvent>()
    let state = Locked(ExchangeStatus())
    private let tasks = Locked<[Task<Void, Never>]>([])

    /// Makes an exchange; nothing happens until ``sync()``, ``start(every:)`` or
    /// ``syncAfterChanges(quietPeriod:)``. Use one exchange per store.
    public init(store: some VersionedStore, remote: Remote, options: ExchangeOptions = ExchangeOptions()) {
        self.store = store
        self.remote = remote
        self.options = options
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    /// The current state, ahead/behind counts, last error and last success.
    public var status: ExchangeStatus { state.withLock { $0 } }

    /// A stream of state changes, transfer progress, ahead/behind counts and sync results.
    /// Each call returns a new stream.
    public func events() -> AsyncStream<ExchangeEvent> { hub.subscribe() }

    /// Runs one sync now (after any sync already running).
    @discardableResult
    public func sync() async throws(ExchangeError) -> SyncReport {
        let result: Result<SyncReport, ExchangeError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(ExchangeError) in try self.runCycle() })
            }
        }
        return try result.get()
    }

    /// Syncs every `interval` until ``stop()``. While the remote is unreachable the delay
    /// grows from ``ExchangeOptions/initialBackoff`` up to ``ExchangeOptions/maximumBackoff``.
    /// Errors that retrying cannot fix (credentials, trust, a halt) stop the loop.
    public func start(every interval: Duration) {
        let task = Task { [weak self] in
            var failures = 0
            while !Task.isCancelled {
                guard let self else { return }
                let delay: Duration
                do {
                    try await self.sync()
                    failures = 0
                    delay = interval
                } catch let error as ExchangeError where error.isTransient {
                    failures += 1
                    delay = min(self.options.backoff(attempt: failures), max(interval, self.options.maximumBackoff))
                } catch {
                    return
                }
                try? await Task.sleep(for: delay)
            }
        }
        tasks.withLock { $0.append(task) }
    }

    /// Syncs after local changes to `main`, once they have been quiet for `quietPeriod`. A sync
    /// that fails on something transient (offline, a lost race) is retried with backoff, a few
    /// times, so a change is not left behind until the next one.
    public func syncAfterChanges(quietPeriod: Duration = .seconds(2)) {
        let changes = store.changes()
        let task = Task { [weak self] in
            var pending: Task<Void, Never>?
            for await change in changes where change.fork == .main && change.mergedFrom != .cloud {
                pending?.cancel()
                pending = Task { [weak self] in
                    try? await Task.sleep(for: quietPeriod)
                    for attempt in 1...5 {
                        guard !Task.isCancelled, let self else { return }
                        do {
                            try await self.sync()
                            return
                        } catch let error as ExchangeError where error.isTransient {
                            try? await Task.sleep(for: self.options.backoff(attempt: attempt))
                        } catch {
                            return
                        }
                    }
                }
                if self == nil { break }
            }
            pending?.cancel()
        }
        tasks.withLock { $0.append(task) }
    }

    /// Stops periodic and change-driven syncing. A sync in progress finishes.
    public func stop() {
        for task in tasks.withLock({ tasks in defer { tasks = [] }; return tasks }) { task.cancel() }
    }

    // MARK: State

    func update(_ change: (inout ExchangeStatus) -> Void) {
        let (before, after) = state.withLock { status in
            let before = status
            change(&status)
            return (before, status)
        }
        if before.state != after.state { hub.publish(.state(after.state)) }
        if (before.ahead, before.behind) != (after.ahead, after.behind) {
            hub.publish(.aheadBehind(ahead: after.ahead, behind: after.behind))
        }
    }

    func publish(_ event: ExchangeEvent) {
        hub.publish(event)
    }
}

extension Exchange {
    /// An exchange for a record collection: merges with the remote go record by record. The
    /// same as ``init(store:remote:options:)``.
    public convenience init<Record>(
        records: RecordStore<Record>, remote: Remote, options: ExchangeOptions = ExchangeOptions()
    ) {
        self.init(store: records, remote: remote, options: options)
    }
}
