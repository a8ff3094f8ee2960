import ForkStoreGit

extension Store {
    /// A commit and the value it holds (nil when the value was removed or never written).
    struct Snapshot {
        let commit: Commit
        let value: Value?
    }

    /// The value on a fork's head; nil when the fork holds no value.
    public func value(in fork: Fork = .main) throws -> Value? {
        try repository.withRepository { repository in
            try Self.snapshot(of: Self.head(of: fork, in: repository), in: repository).value
        }
    }

    /// The value a commit holds; nil when it holds no value.
    public func value(at commit: CommitID) throws -> Value? {
        try repository.withRepository { repository in
            try Self.snapshot(of: Self.existingCommit(commit, in: repository), in: repository).value
        }
    }

    /// The newest commit of a fork.
    public func head(of fork: Fork = .main) throws -> Commit {
        try repository.withRepository { repository in try Self.head(of: fork, in: repository) }
    }

    // MARK: Reading inside the lock

    static func head(of fork: Fork, in repository: Repository) throws(StoreError) -> Commit {
        let id: ObjectID?
        do {
            id = try repository.resolveReference(fork.referenceName)
        } catch {
            throw StoreError(error, during: "reading fork '\(fork)'")
        }
        guard let id else { throw StoreError.forkNotFound(fork.name) }
        return try commit(id, in: repository)
    }

    /// A commit the caller named by id: a missing one is ``StoreError/commitNotFound(_:)``.
    static func existingCommit(_ id: CommitID, in repository: Repository) throws(StoreError) -> Commit {
        do {
            return try commit(id.objectID, in: repository)
        } catch .missingObject {
            throw StoreError.commitNotFound(id.hex)
        }
    }

    static func commit(_ id: ObjectID, in repository: Repository) throws(StoreError) -> Commit {
        do {
            return Commit(try repository.readCommit(id))
        } catch {
            throw StoreError(error, during: "reading commit \(id.hex.prefix(10))", object: id.hex)
        }
    }

    /// Decodes the value of a commit after checking its stamps: a newer format or model
    /// version, or a missing stamp, throws before anything is decoded.
    static func snapshot(of commit: Commit, in repository: Repository) throws(StoreError) -> Snapshot {
        try checkStamps(of: commit)
        let path = ValueCodec.valuePath
        let entry: TreeEntry?
        do {
            entry = try repository.entry(atPath: path, inTree: commit.tree)
        } catch {
            throw StoreError(error, during: "reading the tree of \(commit.id.short)", object: commit.tree.hex)
        }
        guard let entry else { return Snapshot(commit: commit, value: nil) }
        guard entry.kind == .blob else {
            throw StoreError.undecodableValue(commit: commit.id, path: path, reason: "it is a folder, not a file")
        }
        let bytes: [UInt8]
        do {
            bytes = try repository.readBlob(entry.id)
        } catch {
            throw StoreError(error, during: "reading \(path) of \(commit.id.short)", object: entry.id.hex)
        }
        let current = try ValueCodec.migrated(bytes, for: Value.self, commit: commit, path: path)
        let value = try ValueCodec.decode(Value.self, from: current, commit: commit.id, path: path)
        return Snapshot(commit: commit, value: value)
    }

    /// Throws unless this build can read the commit: its format and model version are known.
    static func checkStamps(of commit: Commit) throws(StoreError) {
        if let format = commit.formatVersion, format > FormatVersion.current {
            throw StoreError.newerFormatVersion(found: format, supported: FormatVersion.current)
        }
        guard let modelVersion = commit.modelVersion else {
            throw StoreError.missingModelVersion(commit: commit.id)
        }
        guard modelVersion <= Value.modelVersion else {
            throw StoreError.unknownModelVersion(found: modelVersion, known: Value.modelVersion, commit: commit.id)
        }
        let oldest = Value.migrationPlan.oldestVersion(current: Value.modelVersion)
        guard modelVersion >= oldest || modelVersion == Value.modelVersion else {
            throw StoreError.unsupportedModelVersion(found: modelVersion, oldest: oldest, commit: commit.id)
        }
    }

    /// The tree that stores `value`: one canonical JSON blob, or an empty tree for no value.
    static func tree(for value: Value?, in repository: Repository) throws(StoreError) -> ObjectID {
        do {
            guard let value else { return try repository.writeTree([]) }
            let blob = try repository.writeBlob(try ValueCodec.encode(value))
            return try repository.writeTree([TreeEntry(name: ValueCodec.valuePath, id: blob, kind: .blob)])
        } catch let error as GitError {
            throw StoreError(error, during: "writing the value")
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.encodingFailed(reason: String(describing: error))
        }
    }
}
