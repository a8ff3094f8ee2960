internal import CLibGit2

extension Repository {
    /// Runs `body` with a second handle on this repository whose new objects are kept in memory,
    /// then writes what the commits `body` returns (oldest first) add as one pack with its
    /// index, before this returns: a commit of thousands of objects costs two files instead of
    /// thousands. Nothing `body` writes is visible to other handles until then; a crash before
    /// leaves nothing behind. Move a reference to the commits only after this returns.
    package func withObjectsInOnePack<Result>(_ body: (Repository) throws -> (Result, commits: [ObjectID])) throws -> Result {
        let (objects, memory) = try inMemoryObjectDatabase()
        let batch = try Repository.openBatch(at: gitDirectory, objects: objects, batch: BatchObjects(memory: memory))
        let (result, commits) = try body(batch)
        try writePack(objects: try batch.objectsAdded(by: commits), from: batch)
        return result
    }

    /// An object database that keeps what is written to it in memory (libgit2's mempack) and
    /// reads everything else from this repository's objects, looking for nothing on disk when
    /// an object is written (the reading backend of `shim.h`). Its pack caches (libgit2 keeps
    /// up to 16 MB of delta bases per pack) go with it.
    private func inMemoryObjectDatabase() throws(GitError) -> (OpaquePointer, memory: UnsafeMutablePointer<git_odb_backend>) {
        var database: OpaquePointer?
        var memory: UnsafeMutablePointer<git_odb_backend>?
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
            try check("git_mempack_new") { git_mempack_new(&memory) }
            try add(memory, priority: 1000)
            var reading: UnsafeMutablePointer<git_odb_backend>?
            try check("forkstore_reading_backend_new") { forkstore_reading_backend_new(&reading, gitDirectory + "objects", odb) }
            try add(reading, priority: 1)
        } catch {
            git_odb_free(database)
            throw error
        }
        guard let memory else {
            git_odb_free(database)
            throw GitError(function: "git_mempack_new", rawCode: -1, errorClass: 0, message: "no mempack was returned")
        }
        return (database, memory)
    }

    /// The objects that `commits` (each on top of its first parent) add: the commits, and the
    /// trees and blobs along the paths where each commit's tree differs from its parent's.
    /// The cost follows the size of the changes, not of the trees. Each tree comes with the
    /// version of the same path it replaces, the delta base ``writePack(objects:from:)`` uses.
    ///
    /// With `admit`, every object is passed to it before it is read, and every object it
    /// returns has been passed to it: objects from elsewhere are held to limits there.
    ///
    /// A root commit's tree is compared with `rootTree` when given (a tree the receiver holds),
    /// so that a new lineage whose root holds data the receiver has costs what it changes.
    package func objectsAdded(
        by commits: [ObjectID], admitting admit: ((ObjectID) throws(GitError) -> Void)? = nil, rootTree: ObjectID? = nil
    ) throws(GitError) -> [PackObject] {
        var objects: [PackObject] = []
        var seen = Set<ObjectID>()
        func read(_ tree: ObjectID) throws(GitError) -> [TreeEntry] {
            try admit?(tree)
            return try treeEntries(tree)
        }
        func add(tree: ObjectID, comparedWith old: ObjectID?) throws(GitError) {
            guard tree != old, seen.insert(tree).inserted else { return }
            objects.append(PackObject(id: tree, replaces: old))
            let before = try old.map { (id) throws(GitError) in try read(id) } ?? []
            var previous: [String: TreeEntry] = [:]
            for entry in before { previous[entry.name] = entry }
            for entry in try read(tree) {
                let earlier = previous[entry.name]
                guard entry.id != earlier?.id else { continue }
                switch entry.kind {
                case .tree: try add(tree: entry.id, comparedWith: earlier?.kind == .tree ? earlier?.id : nil)
                case .blob:
                    guard seen.insert(entry.id).inserted else { continue }
                    try admit?(entry.id)
                    objects.append(PackObject(id: entry.id, replaces: nil))
                case .other: continue
                }
            }
        }
        func readCommit(_ id: ObjectID) throws(GitError) -> CommitObject {
            try admit?(id)
            return try self.readCommit(id)
        }
        for commit in commits {
            let object = try readCommit(commit)
            objects.append(PackObject(id: commit, replaces: nil))
            let parentTree = try object.parents.first.map { (id) throws(GitError) in try readCommit(id).tree } ?? rootTree
            // A batch handle's workspace knows what its updates wrote, without reading a tree.
            if let known = batch?.workspace.objectsAdded(making: object.tree, from: parentTree) {
                for added in known where seen.insert(added.id).inserted { objects.append(added) }
            } else {
                try add(tree: object.tree, comparedWith: parentTree)
            }
        }
        return objects
    }

    /// What a push of `head` onto a remote whose `main` is `remoteMain` (nil: it has none yet)
    /// must send: the objects the commits since `remoteMain` add. Nil when `remoteMain` is not
    /// an ancestor of `head` that this repository holds: the remote has commits to fetch and
    /// merge first.
    package func objectsToPush(_ head: ObjectID, onto remoteMain: ObjectID?) throws(GitError) -> [PackObject]? {
        if let remoteMain, remoteMain != head {
            guard contains(remoteMain), try isDescendant(head, of: remoteMain) else { return nil }
        }
        return try objectsAdded(by: Array(walk(from: head, hiding: remoteMain).reversed()))
    }

    /// What a push of `head` that replaces a remote's ref (a new lineage, under a lease) must
    /// send: the objects the commits of `head` add that are not in the history of the
    /// remote's `heads` this repository holds (whole trees for a root commit).
    package func objectsToPush(_ head: ObjectID, replacing heads: [ObjectID]) throws(GitError) -> [PackObject] {
        let held = heads.filter { contains($0) }
        let rootTree = try held.first.map { (id) throws(GitError) in try readCommit(id).tree }
        return try objectsAdded(by: Array(walk(from: head, hiding: held).reversed()), rootTree: rootTree)
    }

    /// Writes `objects` (readable through `source`, by default this repository) as one new pack
    /// with its index in this repository's `objects/pack`, and lets this handle see it.
    ///
    /// Each object is compressed once, and deltas are chosen without a search (libgit2's
    /// packbuilder compares every object with ten others, the larger part of an import's time,
    /// and keeps every object in memory meanwhile). As git does, the newest version of a tree
    /// goes whole, so the version read most costs one inflate and no delta cache; the versions
    /// it replaces in this pack (``PackObject/replaces``) follow, each a ``Delta/tree(from:to:)``
    /// delta against the next newer one. A blob becomes a ``Delta/bytes(from:to:)`` delta
    /// against the last blob written whole, which serves the next ``blobsPerBase`` blobs, so a
    /// record costs at most one delta to read.
    ///
    /// With `readingBack`, the new pack is read back whole (``PackReader/verify()``) before
    /// this returns: for callers that then remove the only other copy of the objects (a fetch's
    /// transfer repository).
    package func writePack(objects: [PackObject], from source: Repository? = nil, readingBack: Bool = false) throws(GitError) {
        guard !objects.isEmpty else { return }
        let folder = gitDirectory + "objects/pack"
        let writer = try packing("writing a pack") { () throws(PackError) in
            try PackWriter(directory: folder, objectCount: objects.count, fsync: Libgit2.isFsyncEnabled)
        }
        try (source ?? self).writeEntries(of: objects, into: writer)
        try packing("writing a pack") { () throws(PackError) in
            let base = folder + "/pack-" + (try writer.finish())
            if readingBack { try PackReader(pack: base + ".pack", index: PackIndex(path: base + ".idx")).verify() }
        }
        try refreshObjects()
    }

    /// Writes `objects` (all readable here) into `writer`, which was made for as many, as
    /// ``writePack(objects:from:)`` describes; the caller finishes the pack.
    func writeEntries(of objects: [PackObject], into writer: PackWriter) throws(GitError) {
        var replacedBy: [ObjectID: ObjectID] = [:], replaces: [ObjectID: ObjectID] = [:]
        for object in objects {
            if let replaced = object.replaces {
                replacedBy[replaced] = object.id
                replaces[object.id] = replaced
            }
        }
        // Entries are planned here and handed to the writer a few megabytes at a time, which
        // compresses each part on every core; a delta names its base by entry number.
        var planned: [PackEntry] = [], plannedBytes = 0
        func plan(_ entry: PackEntry) throws(GitError) -> Int {
            planned.append(entry)
            plannedBytes += entry.payload.count
            let number = writer.entryCount + planned.count - 1
            if plannedBytes >= 4 << 20 {
                try packing("writing a pack") { () throws(PackError) in try writer.append(planned) }
                (planned, plannedBytes) = ([], 0)
            }
            return number
        }
        // The newest versions of trees whose older versions are in this pack too; small trees
        // (a few entries) gain too little to keep.
        var newest: [(entry: Int, id: ObjectID, data: [UInt8])] = []
        var older = Set<ObjectID>()
        var blobBase: (entry: Int, data: [UInt8], uses: Int)?
        for object in objects {
            try withRawObject(object.id) { (kind, data) throws(GitError) in
                switch kind {
                case .tree where replacedBy[object.id] != nil:
                    older.insert(object.id)
                case .tree:
                    let bytes = Array(data)
                    let entry = try plan(PackEntry(id: object.id, kind: kind, payload: bytes))
                    if object.replaces != nil, bytes.count >= 256 { newest.append((entry, object.id, bytes)) }
                case .blob:
                    if let base = blobBase, base.uses < Self.blobsPerBase,
                        let delta = base.data.withUnsafeBytes({ Delta.bytes(from: $0, to: data) })
                    {
                        _ = try plan(PackEntry(id: object.id, delta: delta, against: base.entry))
                        blobBase?.uses += 1
                    } else {
                        blobBase = (try plan(PackEntry(id: object.id, kind: kind, payload: Array(data))), Array(data), 0)
                    }
                default:
                    _ = try plan(PackEntry(id: object.id, kind: kind, payload: Array(data)))
                }
            }
        }
        // Each older version against the next newer one, newest first: a batch's change each.
        for head in newest {
            var base = (entry: head.entry, data: head.data, depth: 0)
            var next = replaces[head.id]
            while let id = next, older.remove(id) != nil {
                try withRawObject(id) { (kind, data) throws(GitError) in
                    if base.depth < Self.deepestChain, let delta = base.data.withUnsafeBytes({ Delta.tree(from: $0, to: data) }) {
                        base = (try plan(PackEntry(id: id, delta: delta, against: base.entry)), Array(data), base.depth + 1)
                    } else {
                        base = (try plan(PackEntry(id: id, kind: kind, payload: Array(data))), Array(data), 0)
                    }
                }
                next = replaces[id]
            }
        }
        for object in objects where older.contains(object.id) {
            try withRawObject(object.id) { (kind, data) throws(GitError) in
                _ = try plan(PackEntry(id: object.id, kind: kind, payload: Array(data)))
            }
        }
        try packing("writing a pack") { () throws(PackError) in try writer.append(planned) }
    }

    /// How many blobs one blob written whole serves as a delta base.
    static let blobsPerBase = 16
    /// The longest chain of tree deltas (git's own default): only older versions are in one.
    static let deepestChain = 50

    /// Runs `body` with an object's kind and data.
    func withRawObject(
        _ id: ObjectID, _ body: (ObjectKind, UnsafeRawBufferPointer) throws(GitError) -> Void
    ) throws(GitError) {
        if let batch, try batch.read(id, body) { return }
        var oid = id.raw
        var object: OpaquePointer?
        try check("git_odb_read") { git_odb_read(&object, odb, &oid) }
        defer { git_odb_object_free(object) }
        guard let kind = ObjectKind(git_odb_object_type(object)) else {
            throw GitError(function: "git_odb_read", rawCode: -1, errorClass: 0, message: "object \(id.hex) has no storable type")
        }
        try body(kind, UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object)))
    }

    /// Runs `body` with an object's kind and data, read from the object database's backends
    /// without passing through its cache: for walks that read each object once, which would
    /// otherwise fill the process-wide cache with objects never read again, and hash each
    /// again (the indexer hashed every object of a fetched pack as it arrived).
    func withRawObjectUncached(
        _ id: ObjectID, _ body: (ObjectKind, UnsafeRawBufferPointer) throws(GitError) -> Void
    ) throws(GitError) {
        if let batch, try batch.read(id, body) { return }
        var oid = id.raw
        var data: UnsafeMutableRawPointer?
        var length = 0
        var type = GIT_OBJECT_INVALID
        var backend: UnsafeMutablePointer<git_odb_backend>?
        // Not found without a refresh (a pack fetched since the list of packs was read): the
        // cached read refreshes it.
        guard try checkFound("git_odb_backend.read", { forkstore_odb_read_uncached(&data, &length, &type, &backend, odb, &oid) }),
            let backend
        else { return try withRawObject(id, body) }
        defer { git_odb_backend_data_free(backend, data) }
        guard let kind = ObjectKind(type) else {
            throw GitError(function: "git_odb_backend.read", rawCode: -1, errorClass: 0, message: "object \(id.hex) has no storable type")
        }
        try body(kind, UnsafeRawBufferPointer(start: data, count: length))
    }
}

/// An object to write into a pack (``Repository/writePack(objects:from:)``).
package struct PackObject: Sendable, Equatable {
    package var id: ObjectID
    /// For a tree, the version of the same path it replaces: a good delta base.
    package var replaces: ObjectID?
}
