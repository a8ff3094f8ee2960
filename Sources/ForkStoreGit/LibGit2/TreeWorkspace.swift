internal import CLibGit2

/// The trees of a batch handle (``Repository/withObjectsInOnePack(_:)``), kept parsed between
/// updates, so that a run of commits each on top of the last (an import's segment) reads each
/// tree once and rewrites only the trees its changes touch.
///
/// libgit2's `git_tree_create_updated` reads every tree along every changed path again for
/// each commit, and a ``Repository/differences(from:to:prefix:)`` of the result (a record
/// count) reads them a third time; each parsed tree stays in libgit2's object cache, which
/// counts its raw bytes while it costs several times that (an import segment's peak memory).
/// Here trees are read raw and parsed once (``Repository/treeEntriesBypassingCache(_:)``), new
/// ones are serialized here and written into the batch's memory, and an update remembers the
/// blobs it changed.
///
/// An update this does not model exactly (a blob where a folder is, or the other way round)
/// is left to libgit2: ``update(from:applying:in:)`` returns nil.
final class TreeWorkspace {
    /// A tree as this workspace holds it: entries in git's order, the folders among them that
    /// were read or changed, the id it was read or last written with, and whether it changed
    /// since.
    private final class Node {
        var entries: [TreeEntry]
        var children: [String: Node] = [:]
        var id: ObjectID?
        var isChanged = false

        init(entries: [TreeEntry], id: ObjectID?) {
            self.entries = entries
            self.id = id
        }
    }

    /// What an update wrote: the trees (each with the version it replaces) and the new blobs.
    private struct Update {
        var from: ObjectID
        var objects: [PackObject]
    }

    private var root: Node?
    private var rootID: ObjectID?
    private var lastUpdate: (from: ObjectID, to: ObjectID, differences: [TreeDifference])?
    /// Every update since the workspace was made, by the tree it made.
    private var updates: [ObjectID: Update] = [:]

    /// The objects the update that made `tree` from `parent` added, as
    /// ``Repository/objectsAdded(by:)`` would find them; nil when no update did.
    func objectsAdded(making tree: ObjectID, from parent: ObjectID?) -> [PackObject]? {
        guard let update = updates[tree], update.from == parent else { return nil }
        return update.objects
    }

    /// The blobs the last update changed, when it went from `old` to `new`.
    func differences(from old: ObjectID?, to new: ObjectID?) -> [TreeDifference]? {
        guard let lastUpdate, lastUpdate.from == old, lastUpdate.to == new else { return nil }
        return lastUpdate.differences
    }

    /// `baseline` with `changes` applied, or nil when the changes need libgit2's own rules.
    func update(from baseline: ObjectID, applying changes: [TreeChange], in repository: Repository) throws(GitError) -> ObjectID? {
        if rootID != baseline || root == nil {
            root = Node(entries: try repository.treeEntriesBypassingCache(baseline), id: baseline)
        }
        guard let root else { return nil }
        var differences: [TreeDifference] = []
        for change in changes {
            let path: String, blob: ObjectID?
            switch change {
            case .upsert(let changed, let new): (path, blob) = (changed, new)
            case .remove(let changed): (path, blob) = (changed, nil)
            }
            guard let difference = try apply(path: path, blob: blob, to: root, in: repository) else {
                self.root = nil  // part-applied: start again from the next baseline
                rootID = nil
                return nil
            }
            if difference.old != difference.new { differences.append(difference) }
        }
        var objects: [PackObject] = []
        let id = try write(root, isRoot: true, into: &objects, in: repository) ?? baseline
        for difference in differences { if let blob = difference.new { objects.append(PackObject(id: blob, replaces: nil)) } }
        rootID = id
        lastUpdate = (baseline, id, differences)
        updates[id] = Update(from: baseline, objects: objects)
        return id
    }

    /// Sets or removes the blob at `path`; nil when a component is of the other kind.
    private func apply(path: String, blob: ObjectID?, to root: Node, in repository: Repository) throws(GitError) -> TreeDifference? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let name = components.last, !name.isEmpty, !components.dropLast().contains(where: \.isEmpty) else { return nil }
        var node = root
        var trail = [root]
        for folder in components.dropLast() {
            if let child = node.children[folder] {
                node = child
            } else if let index = Self.position(of: folder, in: node.entries) {
                let entry = node.entries[index]
                guard entry.kind == .tree else { return nil }
                let child = Node(entries: try repository.treeEntriesBypassingCache(entry.id), id: entry.id)
                node.children[folder] = child
                node = child
            } else {
                guard blob != nil else { return TreeDifference(path: path, old: nil, new: nil) }  // nothing to remove
                let child = Node(entries: [], id: nil)
                node.children[folder] = child
                Self.insert(TreeEntry(name: folder, id: ObjectID(git_oid()), kind: .tree), into: &node.entries)  // its id is set when written
                node = child
            }
            trail.append(node)
        }
        let index = Self.position(of: name, in: node.entries)
        let old = index.map { node.entries[$0] }
        guard old == nil || old?.kind == .blob else { return nil }
        if let blob {
            if old?.id == blob, old?.mode == 0o100644 { return TreeDifference(path: path, old: blob, new: blob) }
            if let index { node.entries.remove(at: index) }
            Self.insert(TreeEntry(name: name, id: blob, kind: .blob), into: &node.entries)
        } else if let index {
            node.entries.remove(at: index)
        } else {
            return TreeDifference(path: path, old: nil, new: nil)
        }
        for changed in trail { changed.isChanged = true }
        return TreeDifference(path: path, old: old?.id, new: blob)
    }

    /// Writes the changed trees below and including `node`, leaving out folders left empty
    /// (nil for one), and lists each with the version it replaces; returns its id.
    private func write(_ node: Node, isRoot: Bool = false, into written: inout [PackObject], in repository: Repository) throws(GitError) -> ObjectID? {
        guard node.isChanged else { return node.id }
        for (name, child) in node.children where child.isChanged {
            let id = try write(child, into: &written, in: repository)
            guard let index = Self.position(of: name, in: node.entries) else { continue }
            if let id {
                node.entries[index].id = id
            } else {
                node.entries.remove(at: index)
                node.children[name] = nil
            }
        }
        guard isRoot || !node.entries.isEmpty else { return nil }
        var data: [UInt8] = []
        for entry in node.entries {
            data.append(contentsOf: String(entry.mode, radix: 8).utf8)
            data.append(0x20)
            data.append(contentsOf: entry.name.utf8)
            data.append(0)
            withUnsafeBytes(of: entry.id.raw.id) { data.append(contentsOf: $0) }
        }
        let id = try data.withUnsafeBytes { bytes in
            Result { () throws(GitError) in try repository.writeObject(bytes, type: GIT_OBJECT_TREE) }
        }.get()
        if id != node.id { written.append(PackObject(id: id, replaces: node.id)) }
        node.id = id
        node.isChanged = false
        return id
    }

    /// Where the entry named `name` is: a binary search for it as a folder, then as a file.
    private static func position(of name: String, in entries: [TreeEntry]) -> Int? {
        for isFolder in [true, false] {
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                let entry = entries[middle]
                if TreeEntry.gitOrder(entry.name.utf8, isFolder: entry.kind == .tree, name.utf8, isFolder: isFolder) < 0 {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            if low < entries.count, entries[low].name == name { return low }
        }
        return nil
    }

    private static func insert(_ entry: TreeEntry, into entries: inout [TreeEntry]) {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].precedesInTree(entry) { low = middle + 1 } else { high = middle }
        }
        entries.insert(entry, at: low)
    }
}
