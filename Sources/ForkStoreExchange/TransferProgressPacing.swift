import ForkStoreLocks

/// Chooses which of one transfer's progress reports are published: the first, the one that
/// says every object moved, and others at most ten times a second, none that repeats the
/// last one published.
///
/// libgit2 reports every object it receives, then the same counts again for every delta it
/// resolves: hundreds of thousands of reports in a first sync of 100,000 records (224,603
/// objects). Published, each woke every listener of ``Exchange/events()`` from the thread that
/// receives the pack, which took a seventh of that sync's processor time.
final class TransferProgressPacing: Sendable {
    private let last = Locked<(progress: TransferProgress, at: ContinuousClock.Instant)?>(nil)
    private let interval: Duration

    init(interval: Duration = .milliseconds(100)) {
        self.interval = interval
    }

    /// Whether `progress` is to be published; if so, it is now the last one published.
    func admits(_ progress: TransferProgress) -> Bool {
        last.withLock { last in
            guard progress != last?.progress else { return false }
            let now = ContinuousClock.now
            if let last {
                let isComplete = progress.totalObjects > 0 && progress.objects == progress.totalObjects
                guard isComplete || now - last.at >= interval else { return false }
            }
            last = (progress, now)
            return true
        }
    }
}
