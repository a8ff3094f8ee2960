internal import CLibGit2

extension Repository {
    /// Runs `body` with a second handle on this repository whose new objects are kept in memory,
    /// then writes what the commits `body` returns (oldest first) add as one pack with its
    /// index, before this returns: a commit of thousands of objects costs two files instead of
    /// thousands. Nothing `body` writes is visible to other handles until then; a crash before
    /// leaves nothing behind. Move a reference to the commits only after this returns.
    package func withObjectsInOnePack<Result>(_ body: (Repository) throws -> (Result, commits: [ObjectID])) throws -> Result {
        let batch = try Repository.openBare(at: gitDirectory)
        var backend: UnsafeMutablePointer<git_odb_backend>?
        try check("git_mempack_new") { git_mempack_new(&backend) }
        guard let backend else {
            throw GitError(function: "git_mempack_new", rawCode: -1, errorClass: 0, message: "no backend was returned")
        }
        do {
            try check("git_odb_add_backend") { git_odb_add_backend(batch.odb, backend, 1000) }
        } catch {
            backend.pointee.free?(backend)
            throw error
        }
        // The odb owns the backend now, and frees it with the batch handle.
        let (result, commits) = try body(batch)
        try writePack(objects: try batch.objectsAdded(by: commits), from: batch)
        return result
    }

    /// The objects that `commits` (each on top of its first parent) add: the commits, and the
    /// trees and blobs along the paths where each commit's tree differs from its parent's.
    /// The cost follows the size of the changes, not of the trees.
    /// Each comes with its path, which the packer uses to find good delta bases (versions of
    /// the same path).
    package func objectsAdded(by commits: [ObjectID]) throws(GitError) -> [(id: ObjectID, path: String)] {
        var objects: [(id: ObjectID, path: String)] = []
        var seen = Set<ObjectID>()
        func add(tree: ObjectID, comparedWith old: ObjectID?, path: String) throws(GitError) {
            guard tree != old, seen.insert(tree).inserted else { return }
            objects.append((tree, path))
            let before = try old.map { (id) throws(GitError) in try treeEntries(id) } ?? []
            var previous: [String: TreeEntry] = [:]
            for entry in before { previous[entry.name] = entry }
            for entry in try treeEntries(tree) {
                let earlier = previous[entry.name]
                guard entry.id != earlier?.id else { continue }
                let entryPath = path.isEmpty ? entry.name : path + "/" + entry.name
                switch entry.kind {
                case .tree: try add(tree: entry.id, comparedWith: earlier?.kind == .tree ? earlier?.id : nil, path: entryPath)
                case .blob: if seen.insert(entry.id).inserted { objects.append((entry.id, entryPath)) }
                case .other: continue
                }
            }
        }
        for commit in commits {
            let object = try readCommit(commit)
            objects.append((commit, ""))
            try add(
                tree: object.tree, comparedWith: try object.parents.first.map { (id) throws(GitError) in try readCommit(id).tree },
                path: "")
        }
        return objects
    }

    /// Writes `objects` (readable through `source`, by default this repository) as one new pack
    /// with its index in this repository's `objects/pack`, and lets this handle see it.
    package func writePack(objects: [(id: ObjectID, path: String)], from source: Repository? = nil) throws(GitError) {
        guard !objects.isEmpty else { return }
        var builder: OpaquePointer?
        try check("git_packbuilder_new") { git_packbuilder_new(&builder, (source ?? self).pointer) }
        defer { git_packbuilder_free(builder) }
        // Delta search is the cost of a large pack (a first push or fetch); use every core.
        git_packbuilder_set_threads(builder, 0)
        for object in objects {
            var oid = object.id.raw
            try check("git_packbuilder_insert") { git_packbuilder_insert(builder, &oid, object.path.isEmpty ? nil : object.path) }
        }
        try check("git_packbuilder_write") { git_packbuilder_write(builder, gitDirectory + "objects/pack", 0, nil, nil) }
        try refreshObjects()
    }
}
