import ForkStoreGit

extension RecordLayout {
    /// Walks the parts of the tree that differ from the parent's: the root holds only
    /// `records`, which holds two levels of two-hex-digit shard folders, which hold record
    /// files; each new or changed record is checked (see ``checkedBlob(_:path:in:limits:session:)``),
    /// decodes through the migration plan, and holds the id its path is made from, so no
    /// record can hide under another's path or appear twice. Returns the trees and blobs it
    /// walked: what the commit adds.
    func validate(_ commit: Commit, against parentTree: ObjectID?, limits: BlobLimits, in session: StoreSession) throws -> [ObjectID] {
        var walked: [ObjectID] = []
        try validate(
            tree: commit.tree, against: parentTree, depth: 0, path: "", commit: commit, limits: limits, session: session, walked: &walked)
        return walked
    }

    private func validate(
        tree: ObjectID, against old: ObjectID?, depth: Int, path: String, commit: Commit, limits: BlobLimits, session: StoreSession,
        walked: inout [ObjectID]
    ) throws {
        guard tree != old else { return }
        walked.append(tree)
        // Read raw and parsed here: tens of thousands of trees arrive with a large first fetch.
        func entries(of tree: ObjectID) throws(StoreError) -> [TreeEntry] {
            try git("reading \(path.isEmpty ? "the root tree" : path)", object: tree.hex) { () throws(GitError) in
                try session.repository.treeEntriesBypassingCache(tree)
            }
        }
        let previous = try old.map(entries) ?? []
        let entries = try entries(of: tree)
        func refuse(_ name: String, _ rule: String) -> StoreError {
            .rejectedCommit(commit: commit.id, path: path.isEmpty ? name : path + "/" + name, rule: rule)
        }
        if depth > 0, entries.isEmpty { throw refuse("", "an empty folder; the format removes folders left empty") }
        for (earlier, later) in zip(entries, entries.dropFirst()) where !earlier.precedesInTree(later) {
            throw refuse(later.name, "tree entries must be unique and in git's order")
        }
        // Both trees are in git's order (the parent's was checked when it arrived, or written
        // here): find each entry's earlier version walking them side by side.
        var cursor = 0
        for entry in entries {
            while cursor < previous.count, previous[cursor].precedesInTree(entry) { cursor += 1 }
            let oldEntry = cursor < previous.count && previous[cursor].name == entry.name ? previous[cursor] : nil
            guard entry.id != oldEntry?.id || entry.mode != oldEntry?.mode else { continue }
            let entryPath = path.isEmpty ? entry.name : path + "/" + entry.name
            switch depth {
            case 0:
                if entry.name == ParticipantsFile.path {  // checked with the signatures
                    walked.append(entry.id)
                    continue
                }
                guard entry.name == RecordPath.root else {
                    throw refuse(entry.name, "a record collection's tree holds only \(RecordPath.root)/")
                }
            case 1, 2:
                guard entry.name.utf8.count == 2, entry.name.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
                else { throw refuse(entry.name, "shard folders are named with two lowercase hexadecimal digits") }
            default:
                try validateRecord(entry, path: entryPath, commit: commit, limits: limits, session: session)
                walked.append(entry.id)
                continue
            }
            guard entry.kind == .tree, entry.mode == 0o40000 else { throw refuse(entry.name, "this must be a folder") }
            try validate(
                tree: entry.id, against: oldEntry?.kind == .tree ? oldEntry?.id : nil, depth: depth + 1, path: entryPath,
                commit: commit, limits: limits, session: session, walked: &walked)
        }
    }

    private func validateRecord(
        _ entry: TreeEntry, path: String, commit: Commit, limits: BlobLimits, session: StoreSession
    ) throws {
        let bytes = try checkedBlob(entry, path: path, in: commit, limits: limits, session: session)
        let envelope = try decode(bytes, path: path, origin: DataOrigin(commit))
        guard RecordPath(id: envelope.id).description == path else {
            throw StoreError.rejectedCommit(
                commit: commit.id, path: path,
                rule: "it holds record '\(envelope.id)', whose path is \(RecordPath(id: envelope.id)), not this one")
        }
    }
}
