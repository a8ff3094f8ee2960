import ForkStoreGit

extension RecordStore {
    /// The record with this id on a fork, or nil. Reads and decodes that record only.
    public func record(_ id: String, in fork: Fork = .main) throws -> Record? {
        try engine.repository.withRepository { repository in
            let head = try Store<Record>.head(of: fork, in: repository)
            try Store<Record>.checkStamps(of: head)
            let path = RecordPath(id: id).description
            guard let entry = try git("reading \(path)", { () throws(GitError) in
                try repository.entry(atPath: path, inTree: head.tree)
            }) else { return nil }
            return try Self.decode(entry.id, path: path, commit: head, expecting: id, in: repository)
        }
    }

    /// How many records a fork holds.
    public func count(in fork: Fork = .main) throws -> Int {
        try engine.repository.withRepository { repository in
            let head = try Store<Record>.head(of: fork, in: repository)
            return try Self.recordEntries(in: head.tree, repository: repository).count
        }
    }

    /// Every record on a fork, in storage order (by shard).
    public func records(in fork: Fork = .main) throws -> [Record] {
        var all: [Record] = []
        try forEachRecord(in: fork) { all.append($0) }
        return all
    }

    /// The records that pass `filter`, sorted by `areInIncreasingOrder` when given.
    public func query(
        in fork: Fork = .main, where filter: (Record) throws -> Bool = { _ in true },
        sortedBy areInIncreasingOrder: ((Record, Record) throws -> Bool)? = nil
    ) throws -> [Record] {
        var matching: [Record] = []
        try forEachRecord(in: fork) { record in
            if try filter(record) { matching.append(record) }
        }
        if let areInIncreasingOrder { try matching.sort(by: areInIncreasingOrder) }
        return matching
    }

    /// Calls `body` with each record of a fork, decoding one at a time, in batches read under
    /// the store's lock so that writers are not held up by a long listing.
    public func forEachRecord(in fork: Fork = .main, _ body: (Record) throws -> Void) throws {
        let (head, entries) = try engine.repository.withRepository { repository in
            let head = try Store<Record>.head(of: fork, in: repository)
            try Store<Record>.checkStamps(of: head)
            return (head, try Self.recordEntries(in: head.tree, repository: repository))
        }
        var start = 0
        while start < entries.count {
            let batch = entries[start..<min(start + 512, entries.count)]
            let records = try engine.repository.withRepository { repository in
                try batch.map { try Self.decode($0.id, path: $0.path, commit: head, expecting: nil, in: repository) }
            }
            for record in records { try body(record) }
            start += batch.count
        }
    }

    // MARK: Inside the lock

    /// The blob and path of every record in a tree.
    static func recordEntries(in tree: ObjectID, repository: Repository) throws -> [(path: String, id: ObjectID)] {
        try git("listing records") { () throws(GitError) in
            guard let root = try repository.entry(atPath: RecordPath.root, inTree: tree), root.kind == .tree else {
                return []
            }
            var found: [(path: String, id: ObjectID)] = []
            for first in try repository.treeEntries(root.id) where first.kind == .tree {
                for second in try repository.treeEntries(first.id) where second.kind == .tree {
                    for file in try repository.treeEntries(second.id) where file.kind == .blob {
                        found.append(("\(RecordPath.root)/\(first.name)/\(second.name)/\(file.name)", file.id))
                    }
                }
            }
            return found
        }
    }

    /// Decodes one record blob, checking that it holds the id its path was computed from.
    static func decode(
        _ blob: ObjectID, path: String, commit: Commit, expecting id: String?, in repository: Repository
    ) throws -> Record {
        let bytes = try git("reading \(path)", object: blob.hex) { () throws(GitError) in try repository.readBlob(blob) }
        let current = try ValueCodec.migrated(bytes, for: Record.self, commit: commit, path: path, member: "record")
        let envelope = try ValueCodec.decode(RecordEnvelope<Record>.self, from: current, commit: commit.id, path: path)
        if let id, !envelope.id.utf8.elementsEqual(id.utf8) {
            throw StoreError.undecodableValue(commit: commit.id, path: path, reason: "it holds record '\(envelope.id)', not '\(id)'")
        }
        return envelope.record
    }
}
