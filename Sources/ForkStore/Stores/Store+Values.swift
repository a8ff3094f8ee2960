extension Store {
    // MARK: Reading

    /// The value on a fork's head; nil when the fork holds no value.
    public func value(in fork: Fork = .main) throws -> Value? {
        try engine.read { session in try layout.value(at: session.head(of: fork), session: session) }
    }

    /// The value a commit holds; nil when it holds no value.
    public func value(at commit: CommitID) throws -> Value? {
        try engine.read { session in try layout.value(at: session.existingCommit(commit), session: session) }
    }

    /// What changed in the value between two commits.
    public func differences(from old: CommitID, to new: CommitID) throws -> [ValueDifference] {
        let (before, after) = try engine.read { session in
            (try layout.encode(layout.value(at: session.existingCommit(old), session: session)),
             try layout.encode(layout.value(at: session.existingCommit(new), session: session)))
        }
        return ValueDifference.between(try before.map(CanonicalJSON.parse), try after.map(CanonicalJSON.parse))
    }

    // MARK: Writing

    /// Saves `value` as the fork's new value in one commit. The value on the fork is replaced,
    /// so a save also repairs a fork whose value no longer decodes.
    ///
    /// When the value is unchanged no commit is made and the current head is returned:
    /// unchanged means the same canonical JSON (a `Set` is written in one order in every
    /// process) or, for an `Equatable` value, equal to the value on the fork (so a value stored
    /// in other bytes by an older version of ForkStore makes no commit either).
    @discardableResult
    public func save(_ value: Value, to fork: Fork = .main, message: String? = nil) throws -> Commit {
        let json = try layout.encode(value, assetLimit: options.maximumAssetSize)
        return try engine.commit(on: fork, message: message ?? "Update value") { session, head in
            let tree = try layout.tree(holding: json, replacingIn: head.tree, session: session)
            guard tree != head.tree, value is any Equatable,
                let current = try? layout.value(in: head.tree, origin: DataOrigin(head), session: session),
                equalIfEquatable(current, value) == true
            else { return tree }
            return head.tree
        }
    }

    /// Changes the fork's value in place and commits the result.
    ///
    /// `change` runs while the store is locked, so the value it sees is the newest and no
    /// other write can slip in between. Keep it short and do not call the store from inside it.
    /// Setting the value to nil removes it. When nothing changed (as for `save`)
    /// no commit is made and the current head is returned.
    @discardableResult
    public func update(
        _ fork: Fork = .main, message: String? = nil, _ change: (inout Value?) throws -> Void
    ) throws -> Commit {
        try engine.commit(on: fork, message: message ?? "Update value") { session, head in
            let before = try layout.value(in: head.tree, origin: DataOrigin(head), session: session)
            var value = before
            try change(&value)
            if let before, let value, equalIfEquatable(before, value) == true { return head.tree }
            return try layout.tree(holding: layout.encode(value, assetLimit: options.maximumAssetSize), replacingIn: head.tree, session: session)
        }
    }

    /// Removes the fork's value with a tombstone commit: a commit whose tree holds no value.
    /// The history keeps every earlier value.
    @discardableResult
    public func remove(from fork: Fork = .main, message: String? = nil) throws -> Commit {
        try replace(fork, with: nil, message: message ?? "Remove value")
    }

    /// Writes the value held by an earlier commit as a new commit on `fork`. History is kept:
    /// nothing is rewritten. Returns the fork's head (unchanged if the value already matches).
    @discardableResult
    public func restore(_ commit: CommitID, in fork: Fork = .main) throws -> Commit {
        try replace(fork, with: layout.encode(value(at: commit)), message: "Restore value from \(commit.short)")
    }

    /// Commits an encoded value (nil: no value) on the fork without reading the current one.
    private func replace(_ fork: Fork, with json: [UInt8]?, message: String) throws -> Commit {
        try engine.commit(on: fork, message: message) { session, head in
            try layout.tree(holding: json, replacingIn: head.tree, session: session)
        }
    }
}
