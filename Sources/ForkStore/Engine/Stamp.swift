extension StoreModel {
    /// A commit message: `text`, then the trailers every commit carries (model version,
    /// format version, Lamport counter), then `extra`.
    func stampedMessage(_ text: String, lamport: Int, _ extra: [Trailer] = []) -> String {
        let stamp = [
            Trailer(key: TrailerKey.modelVersion, value: String(version)),
            Trailer(key: TrailerKey.formatVersion, value: String(FormatVersion.current)),
            Trailer(key: TrailerKey.lamport, value: String(lamport)),
        ]
        return CommitMessage.compose(text, trailers: stamp + extra)
    }

    /// Throws unless this build can read the commit: a newer format, a missing or unknown
    /// model version throw before anything is decoded.
    func checkStamps(of commit: Commit) throws(StoreError) {
        if let format = commit.formatVersion, format > FormatVersion.current {
            throw StoreError.newerFormatVersion(found: format, supported: FormatVersion.current)
        }
        guard let modelVersion = commit.modelVersion else {
            throw StoreError.missingModelVersion(commit: commit.id)
        }
        try checkReadable(modelVersion, in: commit.id)
    }
}
