extension StoreEngine {
    /// Runs one sync (`body`) holding the store's sync lock, `forkstore-sync.flock`, an OS
    /// advisory lock as the writer lock is: one sync at a time, in any process, uses the
    /// transfer repository, since what a fetch brings must stay there until it has been
    /// checked and moved into the store, and every sync empties it. Waits at most `limit` for
    /// the sync holding it; nil, without running `body`, when that sync kept it longer.
    package func withSyncLock<Result>(waitingAtMost limit: Duration, _ body: () throws -> Result) throws -> Result? {
        // A file handle of its own each time: `flock` then excludes the other handles of this
        // process too, so two exchanges of one store in one process wait as two processes do.
        let lock = FileLock(gitDirectory: path, fileName: FileLock.syncFileName)
        return try lock.withLock(waitingAtMost: limit, body)
    }
}
