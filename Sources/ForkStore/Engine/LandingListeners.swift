/// Hears how far work on records goes: records done so far, of how many.
package typealias RecordProgress = @Sendable (_ done: Int, _ total: Int) -> Void

/// What hears a sync take what it fetched into `main`, for data derived from the records (the
/// query module's index), which it brings forward before the sync returns, so that what landed
/// is answered at once.
package struct LandingListener: Sendable {
    /// `main` is about to move: work on the derived data from now until ``landed`` (whoever
    /// asks for it, a live query woken by the move, say) reports to the progress given.
    package var starting: @Sendable (_ progress: RecordProgress?) -> Void
    /// `main` moved (or stayed where it was): bring the derived data to it now. Runs on the
    /// sync's thread, with the store unlocked.
    package var landed: @Sendable () -> Void

    package init(starting: @escaping @Sendable (RecordProgress?) -> Void, landed: @escaping @Sendable () -> Void) {
        self.starting = starting
        self.landed = landed
    }
}

extension StoreEngine {
    /// Adds `listener` for the engine's lifetime.
    package func onLanding(_ listener: LandingListener) {
        landingListeners.withLock { $0.append(listener) }
    }

    /// Runs `move` (which takes a fetch into `main`) between the landing listeners'
    /// ``LandingListener/starting`` and ``LandingListener/landed``, reporting to `progress`.
    func landing<Result>(progress: RecordProgress?, _ move: () throws -> Result) rethrows -> Result {
        let listeners = landingListeners.withLock { $0 }
        for listener in listeners { listener.starting(progress) }
        defer { for listener in listeners { listener.landed() } }
        return try move()
    }
}
