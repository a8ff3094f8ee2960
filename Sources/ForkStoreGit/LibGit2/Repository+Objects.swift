internal import CLibGit2
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kind of object a tree entry names.
package enum EntryKind: Sendable, Equatable {
    case blob
    case tree
    case other

    var fileMode: git_filemode_t {
        switch self {
        case .tree: GIT_FILEMODE_TREE
        case .blob, .other: GIT_FILEMODE_BLOB
        }
    }
}

/// One entry of a git tree.
package struct TreeEntry: Sendable, Equatable {
    package var name: String
    package var id: ObjectID
    package var kind: EntryKind
    /// The git file mode: `0o100644` a file, `0o100755` an executable, `0o120000` a symbolic
    /// link, `0o40000` a folder, `0o160000` a submodule.
    package var mode: UInt32

    package init(name: String, id: ObjectID, kind: EntryKind) {
        self.name = name
        self.id = id
        self.kind = kind
        self.mode = kind == .tree ? 0o40000 : 0o100644
    }

    init(name: String, id: ObjectID, kind: EntryKind, mode: UInt32) {
        self.name = name
        self.id = id
        self.kind = kind
        self.mode = mode
    }

    /// What a ``GitError`` names as its function when an object read as a tree is not one in
    /// git's format: the object's data is at fault, not the repository.
    package static let parsing = "parsing a tree"

    /// The entries of tree `id`, parsed from its raw data (git's `<mode> <name>\0<20-byte id>`,
    /// one after the other), in the order written. A mode is octal digits only (up to 32 bits),
    /// as git reads it. An empty name is read: the layout's rules refuse it, naming the path.
    package static func entries(parsing data: UnsafeRawBufferPointer, of id: ObjectID) throws(GitError) -> [TreeEntry] {
        var entries: [TreeEntry] = []
        var start = 0
        while start < data.count {
            guard let space = data[start...].firstIndex(of: 0x20), let nul = data[space...].firstIndex(of: 0), nul + 21 <= data.count,
                let mode = octal(data[start..<space]),
                let entryID = ObjectID(copying: UnsafeRawBufferPointer(rebasing: data[nul + 1..<nul + 21]))
            else { throw GitError(function: TreeEntry.parsing, rawCode: -1, errorClass: 0, message: "tree \(id.hex) does not parse") }
            let kind: EntryKind = mode == 0o40000 ? .tree : (mode == 0o160000 ? .other : .blob)
            entries.append(TreeEntry(name: String(decoding: data[space + 1..<nul], as: UTF8.self), id: entryID, kind: kind, mode: mode))
            start = nul + 21
        }
        return entries
    }

    /// The value of one or more octal digits; nil for anything else, or a value over 32 bits.
    private static func octal(_ digits: Slice<UnsafeRawBufferPointer>) -> UInt32? {
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for digit in digits {
            guard (0x30...0x37).contains(digit), value <= UInt32.max >> 3 else { return nil }
            value = value << 3 | UInt32(digit - 0x30)
        }
        return value
    }

    /// A plain file (mode 100644), the only kind of blob a store writes.
    package var isPlainFile: Bool { kind == .blob && mode == 0o100644 }

    /// Whether `self` comes before `other` in a git tree (see ``gitOrder(_:isFolder:_:isFolder:)``).
    package func precedesInTree(_ other: TreeEntry) -> Bool {
        let (isFolder, otherIsFolder) = (kind == .tree, other.kind == .tree)
        // Over the names' bytes where they lie in one piece, as they do when parsed from a
        // tree: a fetch's walk compares every entry of every tree it reads with the next, and
        // through the generic views this took a tenth of its time.
        let contiguous = name.utf8.withContiguousStorageIfAvailable { left in
            other.name.utf8.withContiguousStorageIfAvailable { right in Self.gitOrder(left, isFolder: isFolder, right, isFolder: otherIsFolder) }
        }
        let order = contiguous.flatMap { $0 } ?? Self.gitOrder(name.utf8, isFolder: isFolder, other.name.utf8, isFolder: otherIsFolder)
        return order < 0
    }

    /// Git's order of tree entries: by name, bytewise, a folder's name as if it ended in "/"
    /// (so folder `a` comes after file `a.json`). Negative, zero or positive.
    static func gitOrder<Left: Sequence<UInt8>, Right: Sequence<UInt8>>(
        _ left: Left, isFolder leftIsFolder: Bool, _ right: Right, isFolder rightIsFolder: Bool
    ) -> Int {
        var leftBytes = left.makeIterator(), rightBytes = right.makeIterator()
        var leftEnded = false, rightEnded = false
        while true {
            var a = leftBytes.next(), b = rightBytes.next()
            if a == nil, !leftEnded {
                leftEnded = true
                if leftIsFolder { a = 0x2F }
            }
            if b == nil, !rightEnded {
                rightEnded = true
                if rightIsFolder { b = 0x2F }
            }
            switch (a, b) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?) where a != b: return a < b ? -1 : 1
            default: continue
            }
        }
    }
}

extension Repository {
    /// Writes a blob (see ``writeObject(_:type:)``).
    package func writeBlob(_ bytes: [UInt8]) throws(GitError) -> ObjectID {
        try bytes.withUnsafeBytes { buffer in Result { () throws(GitError) in try writeObject(buffer, type: GIT_OBJECT_BLOB) } }.get()
    }

    /// Writes an object of `type`; a batch handle's go straight into its memory
    /// (``BatchObjects/write(_:type:)``).
    func writeObject(_ bytes: UnsafeRawBufferPointer, type: git_object_t) throws(GitError) -> ObjectID {
        if let batch { return try batch.write(bytes, type: type) }
        var oid = git_oid()
        try check("git_odb_write") { git_odb_write(&oid, odb, bytes.baseAddress, bytes.count, type) }
        return ObjectID(oid)
    }

    /// Whether the object database holds the object.
    package func contains(_ id: ObjectID) -> Bool {
        var oid = id.raw
        return git_odb_exists(odb, &oid) == 1
    }

    /// The size and kind of an object, read from its header without loading it.
    package func objectHeader(_ id: ObjectID) throws(GitError) -> (size: Int, kind: EntryKind) {
        var oid = id.raw
        var size = 0
        var type = GIT_OBJECT_INVALID
        try check("git_odb_read_header") { git_odb_read_header(&size, &type, odb, &oid) }
        let kind: EntryKind =
            switch type {
            case GIT_OBJECT_BLOB: .blob
            case GIT_OBJECT_TREE: .tree
            default: .other
            }
        return (size, kind)
    }

    /// The content of a blob, read from the object database's backends past its cache, as git
    /// reads one: a blob is read once per listing, and its id was checked when it was written
    /// here or arrived (the indexer hashes every fetched object). Hashing it again on every read
    /// was a quarter of the cost of reading it; its compressed bytes still carry zlib's checksum.
    package func readBlob(_ id: ObjectID) throws(GitError) -> [UInt8] {
        var bytes: [UInt8] = []
        try withRawObjectUncached(id) { (kind, data) throws(GitError) in
            guard kind == .blob else { throw GitError(function: "blob", rawCode: -1, errorClass: 0, message: "object \(id.hex) is not a blob") }
            bytes = Array(data)
        }
        return bytes
    }

    /// Writes a tree holding exactly `entries`.
    package func writeTree(_ entries: [TreeEntry]) throws(GitError) -> ObjectID {
        var builder: OpaquePointer?
        try check("git_treebuilder_new") { git_treebuilder_new(&builder, pointer, nil) }
        defer { git_treebuilder_free(builder) }
        for entry in entries {
            var oid = entry.id.raw
            try check("git_treebuilder_insert") {
                git_treebuilder_insert(nil, builder, entry.name, &oid, entry.kind.fileMode)
            }
        }
        var oid = git_oid()
        try check("git_treebuilder_write") { git_treebuilder_write(&oid, builder) }
        return ObjectID(oid)
    }

    /// The entries of a tree, in git's order.
    package func treeEntries(_ id: ObjectID) throws(GitError) -> [TreeEntry] {
        var oid = id.raw
        var tree: OpaquePointer?
        try check("git_tree_lookup") { git_tree_lookup(&tree, pointer, &oid) }
        defer { git_tree_free(tree) }
        let count = git_tree_entrycount(tree)
        var entries: [TreeEntry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            guard let entry = git_tree_entry_byindex(tree, index) else { continue }
            entries.append(Self.treeEntry(entry))
        }
        return entries
    }

    /// A tree's entries, parsed here from its raw data, read from the object database's
    /// backends past its cache rather than as a libgit2 tree object, which the object cache
    /// would keep: for walks of many trees each read once (a listing, a batch's workspace, the
    /// check of a fetch), where a parsed tree in the cache costs several times its size.
    package func treeEntriesBypassingCache(_ id: ObjectID) throws(GitError) -> [TreeEntry] {
        var entries: [TreeEntry] = []
        try withRawObjectUncached(id) { (kind, data) throws(GitError) in
            guard kind == .tree else { throw GitError(function: TreeEntry.parsing, rawCode: -1, errorClass: 0, message: "object \(id.hex) is not a tree") }
            entries = try TreeEntry.entries(parsing: data, of: id)
        }
        return entries
    }

    /// The entry at a slash-separated path below a tree, or nil when there is none.
    package func entry(atPath path: String, inTree id: ObjectID) throws(GitError) -> TreeEntry? {
        var oid = id.raw
        var tree: OpaquePointer?
        try check("git_tree_lookup") { git_tree_lookup(&tree, pointer, &oid) }
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        guard try checkFound("git_tree_entry_bypath", { git_tree_entry_bypath(&entry, tree, path) }), let entry else {
            return nil
        }
        defer { git_tree_entry_free(entry) }
        return Self.treeEntry(entry)
    }

    private static func treeEntry(_ entry: OpaquePointer) -> TreeEntry {
        let name = String(cString: git_tree_entry_name(entry))
        let id = ObjectID(git_tree_entry_id(entry).pointee)
        let kind: EntryKind =
            switch git_tree_entry_type(entry) {
            case GIT_OBJECT_BLOB: .blob
            case GIT_OBJECT_TREE: .tree
            default: .other
            }
        return TreeEntry(name: name, id: id, kind: kind, mode: git_tree_entry_filemode_raw(entry).rawValue)
    }
}

/// One change to a tree, by slash-separated path from its root.
package enum TreeChange: Sendable, Equatable {
    /// Add or replace the blob at `path`, creating folders as needed.
    case upsert(path: String, blob: ObjectID)
    /// Remove the entry at `path`; folders left empty disappear.
    case remove(path: String)

    /// The path the change is at.
    package var path: String {
        switch self {
        case .upsert(let path, _), .remove(let path): path
        }
    }
}

extension Repository {
    /// A new tree: `baseline` with `changes` applied. Only the trees on the changed paths are
    /// rewritten, so the cost follows the number of changes and the depth, not the tree's size.
    package func updatedTree(from baseline: ObjectID, applying changes: [TreeChange]) throws(GitError) -> ObjectID {
        guard !changes.isEmpty else { return baseline }
        if let batch, let updated = try batch.workspace.update(from: baseline, applying: changes, in: self) { return updated }
        var base = baseline.raw
        var tree: OpaquePointer?
        try check("git_tree_lookup") { git_tree_lookup(&tree, pointer, &base) }
        defer { git_tree_free(tree) }
        let paths = changes.map { change -> UnsafeMutablePointer<CChar>? in
            switch change {
            case .upsert(let path, _), .remove(let path): strdup(path)
            }
        }
        defer { paths.forEach { free($0) } }
        var updates = zip(changes, paths).map { change, path -> git_tree_update in
            var update = git_tree_update()
            update.path = UnsafePointer(path)
            switch change {
            case .upsert(_, let blob):
                update.action = GIT_TREE_UPDATE_UPSERT
                update.id = blob.raw
                update.filemode = GIT_FILEMODE_BLOB
            case .remove:
                update.action = GIT_TREE_UPDATE_REMOVE
            }
            return update
        }
        var oid = git_oid()
        try check("git_tree_create_updated") {
            updates.withUnsafeMutableBufferPointer { buffer in
                git_tree_create_updated(&oid, pointer, tree, buffer.count, buffer.baseAddress)
            }
        }
        return ObjectID(oid)
    }
}

/// A blob that differs between two trees.
package struct TreeDifference: Sendable, Equatable {
    package var path: String
    /// The blob in the first tree; nil when the path is only in the second.
    package var old: ObjectID?
    /// The blob in the second tree; nil when the path is only in the first.
    package var new: ObjectID?
}

extension Repository {
    /// The blobs that differ between two trees (nil: an empty tree). Subtrees with the same id
    /// are skipped without being read, so the cost follows the size of the change.
    package func differences(from old: ObjectID?, to new: ObjectID?, prefix: String = "") throws(GitError) -> [TreeDifference] {
        guard old != new else { return [] }
        if prefix.isEmpty, let known = batch?.workspace.differences(from: old, to: new) { return known }
        let before = try old.flatMap { (id) throws(GitError) in try lookupTree(id) }
        defer { git_tree_free(before) }
        let after = try new.flatMap { (id) throws(GitError) in try lookupTree(id) }
        defer { git_tree_free(after) }
        let oldCount = before.map { git_tree_entrycount($0) } ?? 0, newCount = after.map { git_tree_entrycount($0) } ?? 0
        var found: [TreeDifference] = []
        // Both trees are sorted by name: walk them side by side, comparing names and ids in C,
        // and make Swift values only for the entries that differ.
        var i = 0, j = 0
        while i < oldCount || j < newCount {
            let left = i < oldCount ? git_tree_entry_byindex(before, i) : nil
            let right = j < newCount ? git_tree_entry_byindex(after, j) : nil
            let order: Int =
                switch (left, right) {
                case (let left?, let right?): Self.gitOrder(left, right)
                case (_?, nil): -1
                default: 1
                }
            let pair: (old: TreeEntry?, new: TreeEntry?)
            if order == 0, let left, let right {
                i += 1
                j += 1
                if git_oid_equal(git_tree_entry_id(left), git_tree_entry_id(right)) != 0,
                    git_tree_entry_type(left) == git_tree_entry_type(right)
                { continue }
                pair = (Self.treeEntry(left), Self.treeEntry(right))
            } else if order < 0, let left {
                i += 1
                pair = (Self.treeEntry(left), nil)
            } else if let right {
                j += 1
                pair = (nil, Self.treeEntry(right))
            } else {
                break
            }
            let name = pair.old?.name ?? pair.new?.name ?? ""
            let path = prefix.isEmpty ? name : prefix + "/" + name
            let oldTree = pair.old?.kind == .tree ? pair.old?.id : nil
            let newTree = pair.new?.kind == .tree ? pair.new?.id : nil
            if oldTree != nil || newTree != nil {
                found += try differences(from: oldTree, to: newTree, prefix: path)
            }
            let oldBlob = pair.old?.kind == .blob ? pair.old?.id : nil
            let newBlob = pair.new?.kind == .blob ? pair.new?.id : nil
            if oldBlob != newBlob {
                found.append(TreeDifference(path: path, old: oldBlob, new: newBlob))
            }
        }
        return found
    }

    /// Two entries in git's order (see ``TreeEntry/gitOrder(_:isFolder:_:isFolder:)``): a
    /// folder `a` sorts after a file `a.json`, where a plain name comparison would put it before
    /// and pair nothing that follows.
    private static func gitOrder(_ left: OpaquePointer, _ right: OpaquePointer) -> Int {
        func name(_ entry: OpaquePointer) -> UnsafeRawBufferPointer {
            let name = git_tree_entry_name(entry)
            return UnsafeRawBufferPointer(start: name, count: name.map { strlen($0) } ?? 0)
        }
        return TreeEntry.gitOrder(
            name(left), isFolder: git_tree_entry_type(left) == GIT_OBJECT_TREE,
            name(right), isFolder: git_tree_entry_type(right) == GIT_OBJECT_TREE)
    }

    /// A tree object, to free with `git_tree_free`.
    private func lookupTree(_ id: ObjectID) throws(GitError) -> OpaquePointer? {
        var oid = id.raw
        var tree: OpaquePointer?
        try check("git_tree_lookup") { git_tree_lookup(&tree, pointer, &oid) }
        return tree
    }
}
