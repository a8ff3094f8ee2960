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

    /// How many loose objects there are (a directory listing of the 256 fan-out folders).
    package func looseObjectCount() -> Int {
        let objects = gitDirectory + "objects/"
        var count = 0
        for prefix in (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? [] where prefix.utf8.count == 2 {
            count += ((try? FileManager.default.contentsOfDirectory(atPath: objects + prefix)) ?? []).filter { $0.utf8.count == 38 }.count
        }
        return count
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

/// One pack file of the object database.
package struct PackFile: Sendable, Equatable {
    /// The path without extension: `…/objects/pack/pack-<hash>`.
    package var base: String
    /// How many objects it holds (from its index).
    package var objectCount: Int
    /// Whether a `.keep` file protects it from repacking.
    package var isKept: Bool
}

extension Repository {
    /// The packs in `objects/pack` that have an index, smallest first.
    package func packs() -> [PackFile] {
        let folder = gitDirectory + "objects/pack/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let set = Set(names)
        return names.filter { $0.hasPrefix("pack-") && $0.hasSuffix(".idx") }.compactMap { name in
            let base = folder + String(name.dropLast(4))
            guard set.contains(String(name.dropLast(4)) + ".pack"), let count = Self.objectCount(ofIndex: base + ".idx") else { return nil }
            return PackFile(base: base, objectCount: count, isKept: set.contains(String(name.dropLast(4)) + ".keep"))
        }.sorted { $0.objectCount < $1.objectCount }
    }

    /// The packs to roll into one so that, smallest first, each remaining pack holds at least
    /// twice as many objects as all smaller ones together (`git repack --geometric=2`): small
    /// packs (every fetch and push adds one) merge often and cheaply, large ones rarely.
    package static func packsToRollUp(_ packs: [PackFile]) -> [PackFile] {
        let candidates = packs.filter { !$0.isKept }
        var total = 0, split = 0
        for (index, pack) in candidates.enumerated() {
            if index > 0, pack.objectCount < 2 * total { split = index + 1 }
            total += pack.objectCount
        }
        return split >= 2 ? Array(candidates.prefix(split)) : []
    }

    /// Writes the objects of `packs` into one new pack and removes them. Readers keep working:
    /// every object is in the new pack before an old one goes. Returns how many objects it
    /// packed.
    @discardableResult
    package func rollUp(_ packs: [PackFile]) throws(GitError) -> Int {
        var builder: OpaquePointer?
        try check("git_packbuilder_new") { git_packbuilder_new(&builder, pointer) }
        defer { git_packbuilder_free(builder) }
        var count = 0
        for pack in packs {
            for id in Self.objectIDs(ofIndex: pack.base + ".idx") {
                var oid = id.raw
                try check("git_packbuilder_insert") { git_packbuilder_insert(builder, &oid, nil) }
                count += 1
            }
        }
        try check("git_packbuilder_write") { git_packbuilder_write(builder, nil, 0, nil, nil) }
        try check("git_odb_refresh") { git_odb_refresh(odb) }
        for pack in packs {
            for suffix in [".idx", ".pack", ".rev"] { try? FileManager.default.removeItem(atPath: pack.base + suffix) }
        }
        try check("git_odb_refresh") { git_odb_refresh(odb) }
        return count
    }

    /// Removes what a killed writer left in the object database: libgit2's temporary pack and
    /// object files. Call it only holding the store's writer lock, so no live writer of ours
    /// owns them; files of other programs (git's own `tmp_*`) are left unless an hour old.
    package func removeLeftoverTemporaryFiles() {
        let fileManager = FileManager.default
        let objects = gitDirectory + "objects/"
        var folders = [objects + "pack/"]
        for prefix in (try? fileManager.contentsOfDirectory(atPath: objects)) ?? [] where prefix.utf8.count == 2 {
            folders.append(objects + prefix + "/")
        }
        for folder in folders {
            for name in (try? fileManager.contentsOfDirectory(atPath: folder)) ?? [] {
                let ours = name.hasPrefix("pack_git2_") || name.hasPrefix("tmp_object_git2_")
                let theirs = name.hasPrefix("tmp_") || name.hasPrefix(".tmp-")
                guard ours || theirs else { continue }
                if theirs, !ours {
                    let modified = (try? fileManager.attributesOfItem(atPath: folder + name))?[.modificationDate] as? Date
                    guard let modified, Date().timeIntervalSince(modified) > 3600 else { continue }
                }
                try? fileManager.removeItem(atPath: folder + name)
            }
        }
    }

    /// The object count of a version-2 pack index: the last entry of its fan-out table.
    private static func objectCount(ofIndex path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 8 + 256 * 4), header.count == 8 + 256 * 4,
            Array(header.prefix(8)) == [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2]
        else { return nil }
        return header.suffix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    /// The object ids a version-2 pack index lists.
    private static func objectIDs(ofIndex path: String) -> [ObjectID] {
        guard let count = objectCount(ofIndex: path), let data = FileManager.default.contents(atPath: path),
            data.count >= 8 + 256 * 4 + count * 20
        else { return [] }
        let start = 8 + 256 * 4
        return (0..<count).compactMap { index in
            var oid = git_oid()
            let offset = start + index * 20
            withUnsafeMutableBytes(of: &oid.id) { target in
                data.copyBytes(to: target.bindMemory(to: UInt8.self), from: offset..<offset + 20)
            }
            return ObjectID(oid)
        }
    }
}
