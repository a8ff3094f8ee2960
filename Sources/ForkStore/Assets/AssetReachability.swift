import ForkStoreGit

/// The assets a repository's history references: every asset reference in every JSON blob
/// (a name ending in `.json`: the only files readers take data from) of the tree of every
/// commit reachable from the heads it is given.
///
/// Each commit, tree and blob is read once, however many commits share it, and a blob is
/// parsed only when its bytes may hold a reference (``AssetReferences/mayHoldReferences(_:)``).
/// Memory holds the ids of the trees and JSON blobs seen (tens of bytes each, as `git gc`'s
/// own walk does), one blob at a time, and the assets found.
struct AssetReachability {
    /// Each well-formed reference's id, with the size it gives.
    private(set) var referenced: [AssetID: Int] = [:]
    /// The ids malformed references name (see ``AssetReferences/idsOfMalformed``).
    private(set) var named: Set<AssetID> = []
    private var seenTrees = Set<ObjectID>()
    private var seenBlobs = Set<ObjectID>()
    /// Heads already walked: later walks stop at their history.
    private var walkedHeads: [ObjectID] = []

    /// A walk that leaves out the history of `hidden` commits.
    init(hiding hidden: [ObjectID] = []) {
        walkedHeads = hidden
    }

    /// Every asset id a reference names, well-formed or not: what collection keeps.
    var ids: Set<AssetID> { named.union(referenced.keys) }

    /// Walks what `head` reaches and earlier heads did not. A head may name a commit, a tag, a
    /// tree or a blob (a reference made by hand).
    mutating func walk(from head: ObjectID, in repository: Repository) throws {
        let kind = try git("reading \(head.hex)", object: head.hex) { () throws(GitError) in try repository.objectHeader(head).kind }
        switch kind {
        case .tree: try visit(tree: head, in: repository)
        case .blob: try visit(blob: head, name: ".json", in: repository)
        case .other:
            let commits = try git("walking the history of \(head.hex)") { () throws(GitError) in
                try repository.walk(from: head, hiding: walkedHeads)
            }
            walkedHeads.append(head)
            for commit in commits {
                try StoreThread.checkCancellation()
                let tree = try git("reading commit \(commit.hex)", object: commit.hex) { () throws(GitError) in
                    try repository.readCommit(commit).tree
                }
                try visit(tree: tree, in: repository)
            }
        }
    }

    private mutating func visit(tree root: ObjectID, in repository: Repository) throws {
        var pending = [root]
        while let tree = pending.popLast() {
            guard seenTrees.insert(tree).inserted else { continue }
            let entries = try git("reading tree \(tree.hex)", object: tree.hex) { () throws(GitError) in
                try repository.treeEntriesBypassingCache(tree)
            }
            for entry in entries {
                switch entry.kind {
                case .tree: pending.append(entry.id)
                case .blob: try visit(blob: entry.id, name: entry.name, in: repository)
                case .other: continue  // a submodule: no data of ours
                }
            }
        }
    }

    private mutating func visit(blob: ObjectID, name: String, in repository: Repository) throws {
        guard name.hasSuffix(".json"), seenBlobs.insert(blob).inserted else { return }
        let bytes = try git("reading blob \(blob.hex)", object: blob.hex) { () throws(GitError) in try repository.readBlob(blob) }
        guard AssetReferences.mayHoldReferences(bytes) else { return }
        let found = AssetReferences(inJSON: bytes)
        for asset in found.assets where referenced[asset.id] == nil { referenced[asset.id] = asset.size }
        named.formUnion(found.idsOfMalformed)
    }
}
