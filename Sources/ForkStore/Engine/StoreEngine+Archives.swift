import ForkStoreGit

/// Archive refs through the exchange (FORMAT.md §16): `refs/forkstore/archive/<checkpoint>`
/// names the old head of `main` a checkpoint lineage replaced. A replica on another lineage
/// fetches the archive of the lineage it meets, to carry its own commits over against their
/// common history; a replica that replaces the remote's lineage pushes its archive first.
/// What an archive brings is old history, checked like any fetch before it reaches the store.
extension StoreEngine {
    /// Where a fetched archive lands in the transfer repository, beside the fetched `main`.
    static var incomingArchiveReference: String { "refs/forkstore/incoming-archive" }

    /// The checkpoint whose archive a replica needs before it takes in `incoming` (fetched,
    /// in the transfer repository): when `incoming` shares no history with `main` (which
    /// holds something), is rooted in a checkpoint, and this store keeps no archive of it.
    /// Nil otherwise, which is every sync on one lineage: `incoming` grows from `cloud`.
    package func archiveToFetch(for incoming: CommitID) throws -> CommitID? {
        let heads = try read { session -> (main: Commit, cloud: ObjectID?) in (try session.head(of: .main), try session.headID(of: .cloud)) }
        if heads.main.parents.isEmpty, heads.main.tree.hex == ObjectID.emptyTreeHex { return nil }
        return try withTransferRepository { repository -> CommitID? in
            let transfer = StoreSession(repository: repository, model: model, signature: Signature(name: "", email: ""))
            let id = incoming.objectID
            if let cloud = heads.cloud, try cloud == id || git("comparing with cloud", { () throws(GitError) in try repository.isDescendant(id, of: cloud) }) {
                return nil
            }
            guard try transfer.areUnrelated(heads.main.id.objectID, id) else { return nil }
            let root = try transfer.lineageRoot(of: id)
            guard root.isCheckpoint else { return nil }
            let name = Checkpoint.archiveReference(of: root.id)
            return try read { session in try git("reading \(name)") { () throws(GitError) in try session.repository.resolveReference(name) } } == nil
                ? root.id : nil
        }
    }

    /// Fetches the remote's archive of `checkpoint` into the transfer repository, beside what
    /// the last fetch brought (within the same limits, counted on their own); nil when the
    /// remote keeps none (an archive dropped by policy: the carry-over then salvages).
    package func fetchArchive(
        of checkpoint: CommitID, from url: String, localPath: String? = nil, options remoteOptions: RemoteOptions
    ) throws -> CommitID? {
        let name = Checkpoint.archiveReference(of: checkpoint)
        return try withTransferRepository { repository in
            try git("preparing the fetch") { () throws(GitError) in try repository.removeReference(Self.incomingArchiveReference) }
            if let remote = LocalRemote(localPath, withWorkingFolder: true) {
                do {
                    return try remote.fetchMain(
                        into: repository, as: Self.incomingArchiveReference, limits: remoteOptions.limits, progress: remoteOptions.progress,
                        remoteReference: name
                    ).map(CommitID.init)
                } catch let error as GitError {
                    throw StoreError(error, during: "fetching \(name) from \(url)")
                }
            }
            try repository.fetch(from: url, refspecs: ["+\(name):\(Self.incomingArchiveReference)"], options: remoteOptions)
            return try git("reading the fetched archive") { () throws(GitError) in
                try repository.resolveReference(Self.incomingArchiveReference).map(CommitID.init)
            }
        }
    }

    /// Keeps a checked archive under its ref in the store; an archive this store already keeps
    /// for that checkpoint stays as it is.
    func keepArchive(_ archive: (checkpoint: CommitID, head: CommitID)) throws {
        let name = Checkpoint.archiveReference(of: archive.checkpoint)
        try write { session in
            try git("keeping \(name)") { () throws(GitError) in
                guard try session.repository.resolveReference(name) == nil else { return }
                try session.repository.updateReference(name, to: archive.head.objectID, expecting: nil, logMessage: "forkstore: archive")
            }
        }
    }

    /// Pushes this store's archive of `checkpoint` to the remote, unless it keeps none or the
    /// remote has one already: before a push that replaces the remote's lineage, so that
    /// replicas still on the old history can carry their commits over against it.
    package func pushArchive(of checkpoint: CommitID, to url: String, localPath: String? = nil, options remoteOptions: RemoteOptions) throws -> PushOutcome {
        guard let head = try read({ session in try session.archiveHead(of: checkpoint) }) else { return .accepted }
        let target = PushTarget(reference: Checkpoint.archiveReference(of: checkpoint), lease: .some(nil))
        let outcome = try push(head.id, to: target, url: url, localPath: localPath, options: remoteOptions)
        // Another replica pushed an archive of the same checkpoint: theirs serves as well.
        if case .behind = outcome { return .accepted }
        return outcome
    }
}

extension StoreSession {
    /// Every archive this store keeps: checkpoint → old head.
    func archives() throws(StoreError) -> [CommitID: ObjectID] {
        let references = try git("listing archives") { () throws(GitError) in try repository.references(withPrefix: Checkpoint.archivePrefix) }
        var found: [CommitID: ObjectID] = [:]
        for reference in references {
            if let checkpoint = Checkpoint.checkpoint(ofArchive: reference.name) { found[checkpoint] = reference.target }
        }
        return found
    }
}
