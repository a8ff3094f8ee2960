import ForkStoreGit

extension RecordLayout {
    /// Walks the parts of the tree that differ from the parent's: the root holds only
    /// `records`, which holds two levels of two-hex-digit shard folders, which hold record
    /// files; each new or changed record is checked (see ``checkedBlob(_:path:in:limits:session:)``),
    /// decodes through the migration plan, and holds the id its path is made from, so no
    /// record can hide under another's path or appear twice. Returns the trees and blobs it
    /// walked (what the commit adds), and, when the commit states its record count, the count
    /// of the tree: the parent's and the records the same walk found added and removed. (The
    /// parent's stated count is checked in its turn, and `main`'s were checked before.)
    ///
    /// With `deferringRecords`, the record files are listed in the tree returned, to be checked
    /// by ``checkDeferredRecords(of:in:limits:memory:session:)`` once the check ahead is done.
    func validate(
        _ commit: Commit, against parent: Commit?, limits: BlobLimits, memory: IncomingCheckMemory, deferringRecords: Bool,
        in session: StoreSession
    ) throws -> CheckedTree {
        var walk = IncomingWalk(commit: commit, limits: limits, memory: memory, session: session)
        walk.deferred = deferringRecords ? [] : nil
        do {
            try validate(tree: commit.tree, against: parent?.tree, depth: 0, path: "", walk: &walk)
        } catch where walk.deferred?.isEmpty == false {
            // The files found before it are checked first: one of them may be the first failure.
            return CheckedTree(walked: walk.walked, trailers: [], deferred: walk.deferred ?? [], failure: error)
        }
        let deferred = walk.deferred ?? []
        // Only a commit that states its count needs it (the parent's count may take a walk).
        guard commit.trailer(TrailerKey.recordCount) != nil else { return CheckedTree(walked: walk.walked, trailers: [], deferred: deferred) }
        let parentCount = try parent.map { (parent) throws(StoreError) in try self.count(of: parent, in: session) } ?? 0
        let count = parentCount + walk.countChange
        return CheckedTree(walked: walk.walked, trailers: [Trailer(key: TrailerKey.recordCount, value: String(count))], deferred: deferred)
    }

    func checkDeferredRecords(
        of checked: CheckedTree, in commit: Commit, limits: BlobLimits, memory: IncomingCheckMemory, session: StoreSession
    ) throws -> CheckedTree {
        let walk = IncomingWalk(commit: commit, limits: limits, memory: memory, session: session)
        for (path, entry) in checked.deferred { try validateRecord(entry, path: path, walk: walk) }
        if let failure = checked.failure { throw failure }
        return CheckedTree(walked: checked.walked, trailers: checked.trailers)
    }

    /// One commit's walk: what it reads with, and what it found so far.
    private struct IncomingWalk {
        let commit: Commit, limits: BlobLimits, memory: IncomingCheckMemory, session: StoreSession
        var walked: [ObjectID] = []
        /// Records added minus records removed.
        var countChange = 0
        /// Record files left to check, when the walk defers them.
        var deferred: [(path: String, entry: TreeEntry)]?

        /// A tree's entries, read raw and parsed here (tens of thousands of trees arrive with
        /// a large first fetch), each once across the fetch's commits (``IncomingCheckMemory``),
        /// from the packs mapped whole where they are (``FetchedTrees``). A tree that is not
        /// one in git's format refuses the commit, naming its path.
        func entries(of tree: ObjectID, path: String) throws(StoreError) -> [TreeEntry] {
            try memory.entries(of: tree) { (tree) throws(StoreError) in
                if let entries = memory.fetchedTrees(in: session.repository, maximumSize: limits.readable)?.entries(of: tree) {
                    return entries
                }
                do throws(GitError) {
                    return try session.repository.treeEntriesBypassingCache(tree)
                } catch where error.function == TreeEntry.parsing {
                    throw .rejectedCommit(commit: commit.id, path: path, rule: "it is not a tree in git's format (\(error.message))")
                } catch {
                    throw StoreError(error, during: "reading \(path.isEmpty ? "the root tree" : path)", object: tree.hex)
                }
            }
        }

        /// How many records an entry of the parent's tree held (an entry of a tree at `depth`:
        /// a record file at depth 3, a folder above), for an entry the commit removes.
        func records(in entry: TreeEntry, depth: Int, path: String) throws(StoreError) -> Int {
            guard entry.kind == .tree else { return depth == 3 ? 1 : 0 }
            var count = 0
            for child in try entries(of: entry.id, path: path) {
                count += try records(in: child, depth: depth + 1, path: path + "/" + child.name)
            }
            return count
        }
    }

    private func validate(tree: ObjectID, against old: ObjectID?, depth: Int, path: String, walk: inout IncomingWalk) throws {
        guard tree != old else { return }
        walk.walked.append(tree)
        let commit = walk.commit
        let previous = try old.map { (old) throws(StoreError) in try walk.entries(of: old, path: path) } ?? []
        let entries = try walk.entries(of: tree, path: path)
        func refuse(_ name: String, _ rule: String) -> StoreError {
            .rejectedCommit(commit: commit.id, path: path.isEmpty ? name : path + "/" + name, rule: rule)
        }
        if depth > 0, entries.isEmpty { throw refuse("", "an empty folder; the format removes folders left empty") }
        for (earlier, later) in zip(entries, entries.dropFirst()) where !earlier.precedesInTree(later) {
            throw refuse(later.name, "tree entries must be unique and in git's order")
        }
        // Both trees are in git's order (the parent's was checked when it arrived, or written
        // here): find each entry's earlier version walking them side by side; the parent's
        // entries passed over are the ones this tree removes.
        var cursor = 0
        func removed(_ entry: TreeEntry) throws(StoreError) {
            guard depth > 0 || entry.name == RecordPath.root else { return }
            walk.countChange -= try walk.records(in: entry, depth: depth, path: path.isEmpty ? entry.name : path + "/" + entry.name)
        }
        for entry in entries {
            while cursor < previous.count, previous[cursor].precedesInTree(entry) {
                try removed(previous[cursor])
                cursor += 1
            }
            var oldEntry: TreeEntry?
            if cursor < previous.count, previous[cursor].name == entry.name {
                oldEntry = previous[cursor]
                cursor += 1
            }
            guard entry.id != oldEntry?.id || entry.mode != oldEntry?.mode else { continue }
            let entryPath = path.isEmpty ? entry.name : path + "/" + entry.name
            switch depth {
            case 0:
                if entry.name == ParticipantsFile.path {  // checked with the signatures
                    walk.walked.append(entry.id)
                    continue
                }
                guard entry.name == RecordPath.root else {
                    throw refuse(entry.name, "a record collection's tree holds only \(RecordPath.root)/")
                }
            case 1, 2:
                guard entry.name.utf8.count == 2, entry.name.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
                else { throw refuse(entry.name, "shard folders are named with two lowercase hexadecimal digits") }
            default:
                if walk.deferred != nil { walk.deferred?.append((entryPath, entry)) } else { try validateRecord(entry, path: entryPath, walk: walk) }
                walk.walked.append(entry.id)
                if oldEntry == nil { walk.countChange += 1 }
                continue
            }
            guard entry.kind == .tree, entry.mode == 0o40000 else { throw refuse(entry.name, "this must be a folder") }
            // A parent's entry of another kind at this name holds no records of this layout.
            if let oldEntry, oldEntry.kind != .tree { try removed(oldEntry) }
            try validate(
                tree: entry.id, against: oldEntry?.kind == .tree ? oldEntry?.id : nil, depth: depth + 1, path: entryPath, walk: &walk)
        }
        for entry in previous[cursor...] { try removed(entry) }
    }

    /// Checks the fetch's blobs as ``validateRecord(_:path:walk:)`` checks a record file, on
    /// other threads, and finds the record each holds: the walk then reads trees, and holds
    /// each record file to its path. A blob that is not a record of `origin`'s model version
    /// here (the participants file, one that breaks a rule) is left to the walk, which says why.
    func startCheckAhead(_ origin: DataOrigin, limits: BlobLimits, reading blobs: FetchedBlobs) -> IncomingCheckAhead? {
        IncomingCheckAhead(modelVersion: origin.modelVersion, waits: blobs.waitForTheFetch) { found in
            // A failure to read leaves the rest to the walk.
            return blobs.forEach(maximumObjectSize: limits.readable) { blob, object in
                guard object.bytes.count <= limits.size,
                    case .success(let document) = Self.checkedDocument(ofBlob: object.bytes, limits: limits),
                    let envelope = try? decode(document: document, path: "", origin: origin)
                else { return }
                found(blob, envelope.id)
            }
        }
    }

    /// Checks one new or changed record file, unless the same blob was checked for the same
    /// model version earlier in this fetch: then only its path is held to the id it holds.
    private func validateRecord(_ entry: TreeEntry, path: String, walk: IncomingWalk) throws {
        let commit = walk.commit
        func checkPath(holding id: String) throws(StoreError) {
            guard RecordPath.isPath(path, of: id) else {
                throw StoreError.rejectedCommit(
                    commit: commit.id, path: path, rule: "it holds record '\(id)', whose path is \(RecordPath(id: id)), not this one")
            }
        }
        if entry.isPlainFile, let id = walk.memory.checkedRecord(entry.id, modelVersion: commit.modelVersion) {
            try checkPath(holding: id)
            return
        }
        walk.memory.recordsCheckedByWalk += 1
        let blob = try checkedBlob(entry, path: path, in: commit, limits: walk.limits, session: walk.session)
        let envelope = try decode(document: blob.document, path: path, origin: DataOrigin(commit))
        try checkPath(holding: envelope.id)
        walk.memory.remember(record: envelope.id, in: entry.id, modelVersion: commit.modelVersion)
    }
}
