internal import CLibGit2

extension Repository {
    /// Runs `body` with a second handle on this repository whose new objects are kept in memory,
    /// then writes what the commits `body` returns (oldest first) add as one pack with its
    /// index, before this returns: a commit of thousands of objects costs two files instead of
    /// thousands. Nothing `body` writes is visible to other handles until then; a crash before
    /// leaves nothing behind. Move a reference to the commits only after this returns.
    package func withObjectsInOnePack<Result>(_ body: (Repository) throws -> (Result, commits: [ObjectID])) throws -> Result {
        let batch = try Repository.openBare(at: gitDirectory, objects: try inMemoryObjectDatabase())
        let (result, commits) = try body(batch)
        try writePack(objects: try batch.objectsAdded(by: commits), from: batch)
        return result
    }

    /// An object database that keeps what is written to it in memory (libgit2's mempack) and
    /// reads everything else from this repository's, looking for nothing on disk when an object
    /// is written (the forwarding backend of `shim.h`).
    private func inMemoryObjectDatabase() throws(GitError) -> OpaquePointer {
        var database: OpaquePointer?
        try check("git_odb_new") { git_odb_new(&database) }
        guard let database else { throw GitError(function: "git_odb_new", rawCode: -1, errorClass: 0, message: "no object database") }
        func add(_ backend: UnsafeMutablePointer<git_odb_backend>?, priority: Int32) throws(GitError) {
            do {
                try check("git_odb_add_backend") { git_odb_add_backend(database, backend, priority) }
            } catch {
                backend?.pointee.free?(backend)  // once added, the database frees it
                throw error
            }
        }
        do {
            var memory: UnsafeMutablePointer<git_odb_backend>?
            try check("git_mempack_new") { git_mempack_new(&memory) }
            try add(memory, priority: 1000)
            var forwarding: UnsafeMutablePointer<git_odb_backend>?
            try check("forkstore_forwarding_backend_new") { forkstore_forwarding_backend_new(&forwarding, odb) }
            try add(forwarding, priority: 1)
        } catch {
            git_odb_free(database)
            throw error
        }
        return database
    }

    /// The objects that `commits` (each on top of its first parent) add: the commits, and the
    /// trees and blobs along the paths where each commit's tree differs from its parent's.
    /// The cost follows the size of the changes, not of the trees. Each tree comes with the
    /// version of the same path it replaces, the delta base ``writePack(objects:from:)`` uses.
    package func objectsAdded(by commits: [ObjectID]) throws(GitError) -> [PackObject] {
        var objects: [PackObject] = []
        var seen = Set<ObjectID>()
        func add(tree: ObjectID, comparedWith old: ObjectID?) throws(GitError) {
            guard tree != old, seen.insert(tree).inserted else { return }
            objects.append(PackObject(id: tree, replaces: old))
            let before = try old.map { (id) throws(GitError) in try treeEntries(id) } ?? []
            var previous: [String: TreeEntry] = [:]
            for entry in before { previous[entry.name] = entry }
            for entry in try treeEntries(tree) {
                let earlier = previous[entry.name]
                guard entry.id != earlier?.id else { continue }
                switch entry.kind {
                case .tree: try add(tree: entry.id, comparedWith: earlier?.kind == .tree ? earlier?.id : nil)
                case .blob: if seen.insert(entry.id).inserted { objects.append(PackObject(id: entry.id, replaces: nil)) }
                case .other: continue
                }
            }
        }
        for commit in commits {
            let object = try readCommit(commit)
            objects.append(PackObject(id: commit, replaces: nil))
            try add(tree: object.tree, comparedWith: try object.parents.first.map { (id) throws(GitError) in try readCommit(id).tree })
        }
        return objects
    }

    /// Writes `objects` (readable through `source`, by default this repository) as one new pack
    /// with its index in this repository's `objects/pack`, and lets this handle see it.
    ///
    /// Each object is compressed once and written whole, except a tree whose earlier version
    /// (``PackObject/replaces``) is already in this pack: that one becomes a ``TreeDelta``
    /// against it. libgit2's packbuilder would search every object for a delta base instead,
    /// the larger part of an import's time, and keep every object in memory meanwhile.
    package func writePack(objects: [PackObject], from source: Repository? = nil) throws(GitError) {
        guard !objects.isEmpty else { return }
        let source = source ?? self
        let writer = try PackWriter(directory: gitDirectory + "objects/pack", odb: odb, objectCount: objects.count)
        // Trees written so far that a later version may be a delta against; small ones (a few
        // entries) gain too little to keep.
        var bases: [ObjectID: (offset: Int, data: [UInt8])] = [:]
        for object in objects {
            try source.withRawObject(object.id) { (kind, data) throws(GitError) in
                let offset: Int
                if kind == 2, let replaced = object.replaces, let base = bases.removeValue(forKey: replaced),
                    let delta = base.data.withUnsafeBytes({ TreeDelta.make(from: $0, to: data) })
                {
                    offset = try writer.append(delta: delta, against: base.offset)
                } else {
                    offset = try writer.append(data, kind: kind)
                }
                if kind == 2, data.count >= 256 { bases[object.id] = (offset, Array(data)) }
            }
        }
        _ = try writer.finish()
        try refreshObjects()
    }

    /// Runs `body` with an object's git type (1 commit, 2 tree, 3 blob, 4 tag) and data.
    private func withRawObject(
        _ id: ObjectID, _ body: (UInt8, UnsafeRawBufferPointer) throws(GitError) -> Void
    ) throws(GitError) {
        var oid = id.raw
        var object: OpaquePointer?
        try check("git_odb_read") { git_odb_read(&object, odb, &oid) }
        defer { git_odb_object_free(object) }
        let kind = git_odb_object_type(object)
        guard (1...4).contains(kind.rawValue) else {
            throw GitError(function: "git_odb_read", rawCode: -1, errorClass: 0, message: "object \(id.hex) has no storable type")
        }
        try body(UInt8(kind.rawValue), UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object)))
    }
}

/// An object to write into a pack (``Repository/writePack(objects:from:)``).
package struct PackObject: Sendable, Equatable {
    package var id: ObjectID
    /// For a tree, the version of the same path it replaces: a good delta base.
    package var replaces: ObjectID?
}
