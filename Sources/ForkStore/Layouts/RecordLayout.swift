import ForkStoreGit

/// A record collection's layout: one canonical JSON blob per record, a ``RecordEnvelope``
/// holding the id, the model version that wrote it and the record, at its ``RecordPath``
/// under `records/`.
struct RecordLayout<Record: Resource & Identifiable>: ContentLayout where Record.ID == String {
    let model: StoreModel
    var kind: Manifest.Kind { .records }

    init() throws(StoreError) {
        model = try StoreModel(of: Record.self)
    }

    /// The one reader of record blobs: decodes the envelope at `path`, migrating it when an
    /// older model version wrote it, and checks that it holds the id its path was computed
    /// from (when `id` is given).
    func read(
        _ blob: ObjectID, path: String, origin: DataOrigin, expecting id: String? = nil, session: StoreSession
    ) throws(StoreError) -> RecordEnvelope<Record> {
        try decode(session.readBlob(blob, path: path), path: path, origin: origin, expecting: id)
    }

    /// Decodes a record blob already read (see ``read(_:path:origin:expecting:session:)``);
    /// needs no session, so listings decode in parallel.
    func decode(
        _ bytes: [UInt8], path: String, origin: DataOrigin, expecting id: String? = nil
    ) throws(StoreError) -> RecordEnvelope<Record> {
        try decode(document: ValueCodec.parse(bytes, commit: origin.commit.id, path: path), path: path, origin: origin, expecting: id)
    }

    /// Decodes a record blob already parsed strictly (see ``decode(_:path:origin:expecting:)``).
    func decode(
        document: JSONValue, path: String, origin: DataOrigin, expecting id: String? = nil
    ) throws(StoreError) -> RecordEnvelope<Record> {
        let current = try model.migrated(document, origin: origin, path: path, member: "record")
        let envelope = try ValueCodec.decoding(commit: origin.commit.id, path: path) { try RecordEnvelope<Record>.decoded(from: current) }
        if let id, !envelope.id.hasSameBytes(as: id) {
            throw StoreError.undecodableValue(
                commit: origin.commit.id, path: path, reason: "it holds record '\(envelope.id)', not '\(id)'")
        }
        guard envelope.record.id.hasSameBytes(as: envelope.id) else {
            throw StoreError.undecodableValue(
                commit: origin.commit.id, path: path,
                reason: "it holds record '\(envelope.id)', whose own id is '\(envelope.record.id)'")
        }
        return envelope
    }

    /// A record as a listing meets it: its blob read (or the failure to read it), decoded, and
    /// checked to hold the id its path is made from, unless `pathChecked` says that this blob
    /// at this path passed that check before (a blob's id names its bytes, so it passes again).
    func listed(
        _ blob: Result<[UInt8], StoreError>, path: String, origin: DataOrigin, pathChecked: Bool = false
    ) -> Result<Record, RecordProblem> {
        let envelope: RecordEnvelope<Record>
        do {
            envelope = try decode(blob.get(), path: path, origin: origin)
        } catch {
            return .failure(RecordProblem(path: path, claimedID: nil, error: error))
        }
        guard pathChecked || RecordPath.isPath(path, of: envelope.id) else {
            let error = StoreError.undecodableValue(
                commit: origin.commit.id, path: path,
                reason: "it holds record '\(envelope.id)', whose path is \(RecordPath(id: envelope.id))")
            return .failure(RecordProblem(path: path, claimedID: envelope.id, error: error))
        }
        return .success(envelope.record)
    }

    /// The record with `id` in a commit's tree, or nil.
    func record(_ id: String, in commit: Commit, session: StoreSession) throws(StoreError) -> Record? {
        let path = RecordPath(id: id).description
        guard let entry = try session.entry(atPath: path, inTree: commit.tree) else { return nil }
        return try read(entry.id, path: path, origin: DataOrigin(commit), expecting: id, session: session).record
    }

    /// A record's blob, refused when it is larger than `limits` allow, when an asset
    /// reference in it would be refused by other replicas
    /// (``AssetReferences/checkWrite(_:limit:)``), or when the record's own id is not `id` (an
    /// `update` or a merge strategy that changed it); encoded before the store is locked.
    func encode(_ record: Record, id: String, limits: BlobLimits) throws(StoreError) -> [UInt8] {
        let limit = limits.size
        guard record.id.hasSameBytes(as: id) else {
            throw StoreError.encodingFailed(
                reason: "record '\(id)' now has the id '\(record.id)'; save it under its new id and delete the old one instead")
        }
        let bytes = try ValueCodec.encode(RecordEnvelope(id: id, modelVersion: model.version, record: record))
        guard bytes.count <= limit else {
            throw StoreError.recordTooLarge(id: id, size: bytes.count, limit: limit)
        }
        try AssetReferences.checkWrite(bytes, limit: limits.assetSize)
        return bytes
    }

    /// The blob and path of every record in a tree. The folders that hold the records (tens of
    /// thousands in a large collection) are read in the order they are stored, each once.
    func entries(in tree: ObjectID, session: StoreSession) throws(StoreError) -> [(path: String, id: ObjectID)] {
        guard let root = try session.entry(atPath: RecordPath.root, inTree: tree), root.kind == .tree else { return [] }
        var folders: [(path: String, id: ObjectID)] = []
        for first in try session.treeEntries(root.id) where first.kind == .tree && RecordPath.isShard(first.name.utf8) {
            for second in try session.treeEntries(first.id) where second.kind == .tree && RecordPath.isShard(second.name.utf8) {
                folders.append(("\(RecordPath.root)/\(first.name)/\(second.name)/", second.id))
            }
        }
        var found: [(path: String, id: ObjectID)] = []
        for index in session.repository.storageOrder(of: folders.map(\.id)) {
            let folder = folders[index]
            let files = try git("reading \(folder.path)", object: folder.id.hex) { () throws(GitError) in
                try session.repository.treeEntriesBypassingCache(folder.id)
            }
            for file in files where file.kind == .blob && RecordPath.isRecordFileName(file.name.utf8) {
                found.append((folder.path + file.name, file.id))
            }
        }
        return found
    }

    /// The record blobs that differ between two trees (nil: an empty tree); what else the
    /// trees hold is not records (see ``RecordPath/isRecordEntry(_:)``).
    func recordDifferences(from old: ObjectID?, to new: ObjectID?, in session: StoreSession) throws(StoreError) -> [TreeDifference] {
        try session.differences(from: old, to: new).filter { RecordPath.isRecordEntry($0.path) }
    }

    /// Decodes every record the commit added or changed (unchanged records were checked where
    /// they were written).
    func replay(_ commit: Commit, in session: StoreSession) throws -> Int {
        let parent = try commit.parents.first.map { (id) throws(StoreError) in try session.commit(id.objectID).tree }
        var decoded = 0
        for difference in try recordDifferences(from: parent, to: commit.tree, in: session) {
            guard let blob = difference.new else { continue }
            _ = try read(blob, path: difference.path, origin: DataOrigin(commit), session: session)
            decoded += 1
        }
        return decoded
    }
}

extension RecordLayout {
    /// How many records a commit's tree holds: its `Record-Count` trailer, or (for commits
    /// without one) a walk of the tree.
    func count(of commit: Commit, in session: StoreSession) throws(StoreError) -> Int {
        if let stated = commit.recordCount { return stated }
        return try entries(in: commit.tree, session: session).count
    }

    /// The count of `tree`: the parent's, plus the records the change adds, minus those it
    /// removes, so keeping it costs what the change costs.
    func count(ofTree tree: ObjectID, after parent: Commit?, in session: StoreSession) throws(StoreError) -> Int {
        guard let parent else { return try entries(in: tree, session: session).count }
        var count = try self.count(of: parent, in: session)
        for difference in try recordDifferences(from: parent.tree, to: tree, in: session) {
            if difference.old == nil { count += 1 }
            if difference.new == nil { count -= 1 }
        }
        return count
    }

    func trailers(forTree tree: ObjectID, after parent: Commit?, in session: StoreSession) throws -> [Trailer] {
        [Trailer(key: TrailerKey.recordCount, value: String(try count(ofTree: tree, after: parent, in: session)))]
    }
}
