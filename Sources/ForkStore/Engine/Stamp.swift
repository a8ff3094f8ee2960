import ForkStoreGit

extension StoreModel {
    /// The trailers every commit carries: the writer's model version, the format version, the
    /// Lamport counter (kept for readers that order by it), the hybrid logical clock and the
    /// replica.
    func stamp(lamport: Int, clock: HybridTime, replica: String) -> [Trailer] {
        [
            Trailer(key: TrailerKey.modelVersion, value: String(version)),
            Trailer(key: TrailerKey.formatVersion, value: String(FormatVersion.current)),
            Trailer(key: TrailerKey.lamport, value: String(lamport)),
            Trailer(key: TrailerKey.clock, value: clock.description),
            Trailer(key: TrailerKey.replica, value: replica),
        ]
    }

    /// Throws unless this build can read the commit: a newer format, a malformed message or
    /// stamp, a missing or unknown model version throw before anything is decoded.
    func checkStamps(of commit: Commit) throws(StoreError) {
        if let format = commit.formatVersion, format > FormatVersion.current {
            throw StoreError.newerFormatVersion(found: format, supported: FormatVersion.current)
        }
        if let problem = commit.problem {
            throw StoreError.malformedCommit(commit: commit.id, reason: problem)
        }
        guard let modelVersion = commit.modelVersion else {
            throw StoreError.missingModelVersion(commit: commit.id)
        }
        try checkReadable(modelVersion, in: commit.id)
    }
}

extension StoreEngine {
    /// The message of a new commit of `tree` on top of `parents`: `text`, the stamp with the next
    /// clock reading, the layout's trailers (a record count), a `Clock-Clamped` trailer for each
    /// parent whose clock ran too far ahead, then `extra`. Runs under the writer lock.
    func stampedMessage(
        _ text: String, tree: ObjectID, after parents: [Commit], in session: StoreSession, _ extra: [Trailer] = []
    ) throws -> String {
        let (reading, clamped) = try clock.next(after: parents) { try session.forkHeads() }
        var trailers = model.stamp(
            lamport: parents.map(\.nextLamport).max() ?? 1, clock: reading, replica: try clock.replica)
        trailers += try layout.trailers(forTree: tree, after: parents.first, in: session)
        for parent in clamped {
            let ahead = parent.clock.milliseconds - reading.milliseconds
            options.logger.notice("commit \(parent.id.short) claims a clock \(ahead) ms ahead of this one; ordered as if it were not")
            trailers.append(Trailer(key: TrailerKey.clockClamped, value: "\(parent.id.hex) \(ahead) ms ahead"))
        }
        return CommitMessage.compose(text, trailers: trailers + extra)
    }
}
