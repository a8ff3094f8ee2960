/// Hears how far work on records goes: records done so far, of how many.
package typealias RecordProgress = @Sendable (_ done: Int, _ total: Int) -> Void

extension StoreEngine {
    /// Adds `listener`, for the engine's lifetime, to what hears each time a sync has moved
    /// `main` to take in what it fetched: data derived from the records (the query module's
    /// index) is brought forward there, before the sync returns, so that what landed is
    /// answered at once. `listener` runs on the sync's thread, with the store unlocked, and
    /// reports how far it goes through the progress it is given.
    package func onLanding(_ listener: @escaping @Sendable (_ progress: RecordProgress?) -> Void) {
        landingListeners.withLock { $0.append(listener) }
    }

    /// Runs every landing listener (``onLanding(_:)``), one after the other.
    func tellLanded(progress: RecordProgress?) {
        for listener in landingListeners.withLock({ $0 }) { listener(progress) }
    }
}
