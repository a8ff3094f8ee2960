import ForkStoreGit

/// What the exchange asks of the engine about assets: which ones commits bring, so a push
/// uploads them first and a sync can download them. Only the blobs that changed are read
/// (tree differences), and of those only the ones that mention `"$asset"` are parsed, so the
/// cost follows the size of the change, not of the store.
extension StoreEngine {
    /// The assets `commits` (a push's outgoing commits) reference that the history they build
    /// on did not: each commit's tree against its first parent's, and a merge's also against
    /// every other parent outside `commits` (what a merge takes from the remote, the remote has).
    /// A commit whose first parent is outside `commits` builds on what the remote holds. Each
    /// asset once, with the first place found, newest commits first.
    package func assets(introducedBy commits: [Commit]) throws -> [ReferencedAsset] {
        let outgoing = Set(commits.map(\.id))
        return try read { session in
            var scan = AssetScan(records: layout.kind == .records)
            for commit in commits {
                let first = try commit.parents.first.map { (id) throws(StoreError) in try session.commit(id.objectID).tree }
                var changed = try session.differences(from: first, to: commit.tree).filter { $0.new != nil }
                for other in commit.parents.dropFirst() where !outgoing.contains(other) && !changed.isEmpty {
                    let theirs = try session.commit(other.objectID).tree
                    let differing = Set(try session.differences(from: theirs, to: commit.tree).map { "\($0.path)\0\($0.new?.hex ?? "")" })
                    changed = changed.filter { differing.contains("\($0.path)\0\($0.new?.hex ?? "")") }
                }
                for difference in changed { try scan.read(difference, in: session) }
            }
            return scan.found
        }
    }

    /// The assets referenced by the blobs of `new`'s tree that differ from `old`'s (nil: every
    /// blob of `new`): what a sync brought into `main` since `old`. Each asset once.
    package func assets(changedFrom old: CommitID?, to new: CommitID) throws -> [ReferencedAsset] {
        try read { session in
            var scan = AssetScan(records: layout.kind == .records)
            let before = try old.map { (id) throws(StoreError) in try session.commit(id.objectID).tree }
            let after = try session.commit(new.objectID).tree
            for difference in try session.differences(from: before, to: after) where difference.new != nil {
                try scan.read(difference, in: session)
            }
            return scan.found
        }
    }
}

/// The references found in the blobs read so far, each blob read once and each asset kept
/// once.
private struct AssetScan {
    /// Whether blobs at record paths are record envelopes (`{"id", "modelVersion", "record"}`).
    let records: Bool
    private(set) var found: [ReferencedAsset] = []
    private var read = Set<ObjectID>()
    private var seen = Set<AssetID>()

    init(records: Bool) {
        self.records = records
    }

    mutating func read(_ difference: TreeDifference, in session: StoreSession) throws(StoreError) {
        guard let blob = difference.new, read.insert(blob).inserted else { return }
        let bytes = try session.readBlob(blob, path: difference.path)
        guard AssetReferences.mayHoldReferences(bytes), let document = try? JSONValue(parsing: bytes) else { return }
        let references = AssetReferences(in: document)
        let isRecord = records && RecordPath.isRecordEntry(difference.path)
        let recordID: String? = isRecord ? Self.member("id", of: document) : nil
        for (asset, pointer) in zip(references.assets, references.pointers) where seen.insert(asset.id).inserted {
            // A record's references are named inside the record, not its envelope.
            let inside = isRecord && pointer.hasPrefix("/record") ? String(pointer.dropFirst("/record".count)) : pointer
            found.append(ReferencedAsset(asset: asset, recordID: recordID, pointer: inside))
        }
    }

    private static func member(_ key: String, of document: JSONValue) -> String? {
        guard case .object(let members) = document, case .string(let value)? = members.first(where: { $0.key == key })?.value
        else { return nil }
        return value
    }
}
