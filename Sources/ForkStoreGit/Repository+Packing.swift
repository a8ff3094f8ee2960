internal import CLibGit2
import Foundation

extension Repository {
    /// The loose objects in the object database: the files `objects/xx/<38 hex>`.
    package func looseObjects() -> [(id: ObjectID, path: String)] {
        let objects = gitDirectory + "objects/"
        var found: [(id: ObjectID, path: String)] = []
        for prefix in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? [] where prefix.utf8.count == 2 {
            for rest in (try? FileManager.default.contentsOfDirectory(atPath: objects + prefix)) ?? [] where rest.utf8.count == 38 {
                if let id = ObjectID(hex: prefix + rest) {
                    found.append((id, objects + prefix + "/" + rest))
                }
            }
        }
        return found
    }

    /// An estimate of the number of loose objects from four of the 256 fan-out folders (as
    /// `git gc --auto` does with one), so the check costs four directory reads.
    package func estimatedLooseObjectCount() -> Int {
        let sample = ["17", "5c", "a3", "e8"].reduce(0) { total, folder in
            total + ((try? FileManager.default.contentsOfDirectory(atPath: gitDirectory + "objects/" + folder))?.count ?? 0)
        }
        return sample * 64
    }

    /// Objects per pack: libgit2's packbuilder holds every object it packs in memory, so
    /// packing in slices keeps a large store's peak memory bounded.
    package static let objectsPerPack = 16_384

    /// Writes every loose object into new packs (with their indexes), at most
    /// ``objectsPerPack`` objects each, and deletes the loose files. Readers keep working
    /// throughout: an object is in a pack before its loose copy goes. Returns how many objects
    /// were packed.
    @discardableResult
    package func packLooseObjects() throws(GitError) -> Int {
        let loose = looseObjects()
        var start = 0
        while start < loose.count {
            let slice = loose[start..<min(start + Self.objectsPerPack, loose.count)]
            try pack(Array(slice))
            start += slice.count
        }
        return loose.count
    }

    private func pack(_ loose: [(id: ObjectID, path: String)]) throws(GitError) {
        var builder: OpaquePointer?
        try check("git_packbuilder_new") { git_packbuilder_new(&builder, pointer) }
        defer { git_packbuilder_free(builder) }
        for object in loose {
            var oid = object.id.raw
            try check("git_packbuilder_insert") { git_packbuilder_insert(builder, &oid, nil) }
        }
        try check("git_packbuilder_write") { git_packbuilder_write(builder, nil, 0, nil, nil) }
        for object in loose {
            try? FileManager.default.removeItem(atPath: object.path)
        }
        try check("git_odb_refresh") { git_odb_refresh(odb) }
    }
}

extension Repository {
    /// Writes the objects that commits reachable from `head`, but from none of `hidden`, add
    /// (the commits, and the trees and blobs the hidden commits lack) into one new pack with its
    /// index in `directory`, which may be another repository's `objects/pack`. Returns how many
    /// objects it wrote; nothing is written when there are none.
    @discardableResult
    package func writePack(from head: ObjectID, hiding hidden: [ObjectID], into directory: String) throws(GitError) -> Int {
        var walker: OpaquePointer?
        try check("git_revwalk_new") { git_revwalk_new(&walker, pointer) }
        defer { git_revwalk_free(walker) }
        var start = head.raw
        try check("git_revwalk_push") { git_revwalk_push(walker, &start) }
        for id in hidden {
            var stop = id.raw
            try check("git_revwalk_hide") { git_revwalk_hide(walker, &stop) }
        }
        var builder: OpaquePointer?
        try check("git_packbuilder_new") { git_packbuilder_new(&builder, pointer) }
        defer { git_packbuilder_free(builder) }
        try check("git_packbuilder_insert_walk") { git_packbuilder_insert_walk(builder, walker) }
        let count = git_packbuilder_object_count(builder)
        guard count > 0 else { return 0 }
        try check("git_packbuilder_write") { git_packbuilder_write(builder, directory, 0, nil, nil) }
        return count
    }

    /// Removes every object this repository holds itself (packs and loose files), keeping those
    /// it reads through its alternates.
    package func removeOwnObjects() {
        let objects = gitDirectory + "objects/"
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: objects)) ?? [] where name.utf8.count == 2 {
            try? fileManager.removeItem(atPath: objects + name)
        }
        for name in (try? fileManager.contentsOfDirectory(atPath: objects + "pack")) ?? [] {
            try? fileManager.removeItem(atPath: objects + "pack/" + name)
        }
        _ = try? check("git_odb_refresh") { git_odb_refresh(odb) }
    }

    /// Drops cached knowledge of the object database, so objects another handle or process
    /// wrote are found.
    package func refreshObjects() throws(GitError) {
        try check("git_odb_refresh") { git_odb_refresh(odb) }
    }
}
