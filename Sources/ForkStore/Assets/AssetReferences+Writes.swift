extension AssetReferences {
    /// Refuses JSON about to be written whose asset references another replica would refuse
    /// (FORMAT.md §13.1): such a commit would be refused by every peer, and stop the sync of
    /// everything after it. A reference made by ``Asset`` is always well-formed; this catches
    /// one written by hand (a `JSONValue`, a type of the app's own) before anything is written.
    ///
    /// - Throws: ``StoreError/encodingFailed(reason:)`` for a malformed reference (a negative,
    ///   fractional or missing size, an id that is not `sha256:` and 64 lowercase hexadecimal
    ///   digits, a name with a `/`), ``StoreError/assetTooLarge(size:limit:)`` for one whose
    ///   size is over `limit`.
    static func checkWrite(_ json: [UInt8], limit: Int) throws(StoreError) {
        guard mayHoldReferences(json) else { return }
        let found = AssetReferences(inJSON: json)
        if let problem = found.problems.first {
            throw StoreError.encodingFailed(reason: "the asset reference at \(problem.pointer) is malformed: \(problem.reason)")
        }
        if let large = found.assets.first(where: { $0.size > limit }) {
            throw StoreError.assetTooLarge(size: large.size, limit: limit)
        }
    }
}
