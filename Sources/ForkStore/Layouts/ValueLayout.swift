import ForkStoreGit

/// A single-value store's layout: the value is one canonical JSON blob, `value.json`, at the
/// root of the tree; an empty tree means no value (never written, or removed).
struct ValueLayout<Value: Resource>: ContentLayout {
    /// Where the value lives in a commit's tree.
    static var path: String { "value.json" }

    let model: StoreModel
    var kind: Manifest.Kind { .value }

    init() throws(StoreError) {
        model = try StoreModel(of: Value.self)
    }

    /// The value a tree holds, migrated to the current model version; nil when it holds none.
    func value(in tree: ObjectID, origin: DataOrigin, session: StoreSession) throws(StoreError) -> Value? {
        let path = Self.path
        guard let entry = try session.entry(atPath: path, inTree: tree) else { return nil }
        guard entry.kind == .blob else {
            throw StoreError.undecodableValue(commit: origin.commit.id, path: path, reason: "it is a folder, not a file")
        }
        return try decode(session.readBlob(entry.id, path: path), origin: origin)
    }

    /// A value's bytes, migrated to the current model version and decoded.
    private func decode(_ bytes: [UInt8], origin: DataOrigin) throws(StoreError) -> Value {
        try decode(document: ValueCodec.parse(bytes, commit: origin.commit.id, path: Self.path), origin: origin)
    }

    /// A value's document, already parsed strictly, migrated and decoded.
    private func decode(document: JSONValue, origin: DataOrigin) throws(StoreError) -> Value {
        let current = try model.migrated(document, origin: origin, path: Self.path)
        return try ValueCodec.decode(Value.self, from: current, commit: origin.commit.id, path: Self.path)
    }

    /// The value a commit holds, after checking its stamps.
    func value(at commit: Commit, session: StoreSession) throws(StoreError) -> Value? {
        try session.checkStamps(of: commit)
        return try value(in: commit.tree, origin: DataOrigin(commit), session: session)
    }

    /// The canonical JSON of a value, encoded before the store is locked. With `assetLimit`
    /// (a write), its asset references are checked as other replicas will check them
    /// (``AssetReferences/checkWrite(_:limit:)``).
    func encode(_ value: Value?, assetLimit: Int? = nil) throws(StoreError) -> [UInt8]? {
        guard let value else { return nil }
        let json = try ValueCodec.encode(value)
        if let assetLimit { try AssetReferences.checkWrite(json, limit: assetLimit) }
        return json
    }

    /// The tree that stores an encoded value (nil: no value): `base` with `value.json`
    /// replaced or removed, so other entries (the participants file) stay; without a base, a
    /// tree holding only the value.
    func tree(holding json: [UInt8]?, replacingIn base: ObjectID? = nil, session: StoreSession) throws(StoreError) -> ObjectID {
        guard let base else {
            guard let json else { return try session.writeTree([]) }
            return try session.writeTree([TreeEntry(name: Self.path, id: session.writeBlob(json, path: Self.path), kind: .blob)])
        }
        if let json {
            return try session.updatedTree(base, applying: [.upsert(path: Self.path, blob: session.writeBlob(json, path: Self.path))])
        }
        guard try session.entry(atPath: Self.path, inTree: base) != nil else { return base }
        return try session.updatedTree(base, applying: [.remove(path: Self.path)])
    }

    func merge(
        base: MergeInput?, dominant: MergeInput, subordinate: MergeInput, onto target: ObjectID, in session: StoreSession
    ) throws -> LayoutMerge {
        func version(_ input: MergeInput) throws -> ValueMerge<Value>.Version {
            try ValueMerge<Value>.Version(value(in: input.tree, origin: input.origin, session: session))
        }
        let (merged, decision) = try ValueMerge<Value>.merge(
            ancestor: try base.map(version), dominant: try version(dominant), subordinate: try version(subordinate))
        return LayoutMerge(
            // On the target's tree, so entries the layout does not name are kept.
            tree: try tree(holding: merged.json, replacingIn: target, session: session), decision: decision,
            origin: DataOrigin(writtenByThisBuild: model, near: dominant.origin.commit))
    }

    func validate(
        _ commit: Commit, against parent: Commit?, limits: BlobLimits, memory: IncomingCheckMemory, deferringRecords: Bool,
        in session: StoreSession
    ) throws -> CheckedTree {
        CheckedTree(walked: try validate(commit, against: parent?.tree, limits: limits, in: session), trailers: [])
    }

    private func validate(_ commit: Commit, against parentTree: ObjectID?, limits: BlobLimits, in session: StoreSession) throws -> [ObjectID] {
        guard commit.tree != parentTree else { return [] }
        var value: TreeEntry?
        var walked = [commit.tree]
        for entry in try session.treeEntries(commit.tree) {
            walked.append(entry.id)  // the value, and the participants (checked with the signatures)
            guard entry.name != ParticipantsFile.path else { continue }
            guard entry.name == Self.path else {
                throw StoreError.rejectedCommit(
                    commit: commit.id, path: entry.name, rule: "a value store's tree holds only \(Self.path)")
            }
            value = entry
        }
        guard let value else { return walked }  // no value: a removal
        if let parentTree, try session.entry(atPath: Self.path, inTree: parentTree)?.id == value.id { return walked }
        _ = try decode(
            document: checkedBlob(value, path: Self.path, in: commit, limits: limits, session: session).document, origin: DataOrigin(commit))
        return walked
    }

    func trailers(forTree tree: ObjectID, after parent: Commit?, in session: StoreSession) throws -> [Trailer] { [] }

    func replay(_ commit: Commit, in session: StoreSession) throws -> Int {
        _ = try value(in: commit.tree, origin: DataOrigin(commit), session: session)
        return 1
    }
}
