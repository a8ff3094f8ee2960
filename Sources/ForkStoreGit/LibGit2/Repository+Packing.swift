internal import CLibGit2
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// Objects per pack: libgit2's packbuilder holds every object it packs in memory, so
    /// packing in slices keeps a large store's peak memory bounded.
    package static let objectsPerPack = 16_384

    /// Writes every loose object (or `loose`, when the caller has just listed them) into new
    /// packs (with their indexes), at most ``objectsPerPack`` objects each, and deletes the
    /// loose files once the new pack has been read back (``PackReader/verify()``) and holds
    /// each of them. Readers keep working throughout: an object is in a verified pack before
    /// its loose copy goes. Returns how many objects were packed.
    @discardableResult
    package func packLooseObjects(_ loose: [(id: ObjectID, path: String)]? = nil) throws(GitError) -> Int {
        let loose = loose ?? looseObjects()
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
        let before = Set(packs().map(\.base))
        try check("git_packbuilder_write") { git_packbuilder_write(builder, nil, 0, nil, nil) }
        try refreshObjects()
        // The pack libgit2 wrote, read back before the loose copies go: an index that names
        // every object, entries that inflate and hash to their ids.
        let written = packs().filter { !before.contains($0.base) }
        try packing("packing loose objects") { () throws(PackError) in
            var holds = Set<ObjectID>()
            for pack in written {
                let index = try PackIndex(path: pack.base + ".idx")
                try PackReader(pack: pack.base + ".pack", index: index).verify()
                for number in 0..<index.count { holds.insert(index.id(at: number)) }
            }
            if let missing = loose.first(where: { !holds.contains($0.id) }) {
                throw PackError(.damaged, "the new pack does not hold \(missing.id.hex); the loose objects are kept")
            }
        }
        for object in loose {
            try? FileManager.default.removeItem(atPath: object.path)
        }
    }
}

extension Repository {
    /// Takes the packs `source` holds itself into this repository, as they are, when every
    /// object in them is among `objects` or already here, and every one of `objects` is in
    /// them or here; otherwise takes nothing and returns false. A fetch's pack, checked object
    /// by object in the transfer repository, becomes the store's without being read and
    /// written again; a pack that also holds anything else (objects of a refused fetch kept
    /// for inspection, say) is not taken. The files are hard-linked (the pack, then its index,
    /// which makes it visible), so `source` stays whole whatever happens half-way.
    package func adoptPacks(of source: Repository, holdingOnly objects: Set<ObjectID>) throws(GitError) -> Bool {
        let packs = source.packs()
        guard !packs.isEmpty else { return false }
        var covered = Set<ObjectID>()
        for pack in packs {
            let index = try packing("reading a fetched pack's index") { () throws(PackError) in try PackIndex(path: pack.base + ".idx") }
            for number in 0..<index.count {
                let id = index.id(at: number)
                guard objects.contains(id) || contains(id) else { return false }
                covered.insert(id)
            }
        }
        guard objects.allSatisfy({ covered.contains($0) || contains($0) }) else { return false }
        let folder = gitDirectory + "objects/pack/"
        var linked: [String] = []
        for pack in packs {
            let name = URL(fileURLWithPath: pack.base).lastPathComponent
            for suffix in [".pack", ".idx"] where !FileManager.default.fileExists(atPath: folder + name + suffix) {
                guard link(pack.base + suffix, folder + name + suffix) == 0 else {
                    let reason = String(cString: strerror(errno))
                    for path in linked.reversed() { unlink(path) }
                    throw GitError(
                        function: "link", rawCode: -1, errorClass: Int32(GIT_ERROR_OS.rawValue),
                        message: "taking \(pack.base + suffix) into the store: \(reason)")
                }
                linked.append(folder + name + suffix)
            }
        }
        if Libgit2.isFsyncEnabled { try packing("syncing objects/pack") { () throws(PackError) in try PackWriter.synchronize(folder) } }
        try refreshObjects()
        return true
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
        try? refreshObjects()
    }

    /// Drops cached knowledge of the object database, so objects another handle or process
    /// wrote are found.
    package func refreshObjects() throws(GitError) {
        try check("git_odb_refresh") { git_odb_refresh(odb) }
    }
}

extension Repository {
    /// Removes what a killed writer or packer left in the object database: libgit2's temporary
    /// pack and object files, and a pack file without its index or an index without its pack
    /// (a packer killed between its two renames). Call it only holding both the store's writer
    /// and packing locks, so no live writer or packer of ours owns them; files of other programs
    /// (git's own `tmp_*`) are left unless an hour old.
    package func removeLeftoverTemporaryFiles() {
        let fileManager = FileManager.default
        let objects = gitDirectory + "objects/"
        var folders = [objects + "pack/"]
        for prefix in (try? fileManager.contentsOfDirectory(atPath: objects)) ?? [] where prefix.utf8.count == 2 {
            folders.append(objects + prefix + "/")
        }
        for folder in folders {
            let names = (try? fileManager.contentsOfDirectory(atPath: folder)) ?? []
            let present = Set(names)
            for name in names {
                let ours = name.hasPrefix("pack_git2_") || name.hasPrefix("tmp_object_git2_") || name.hasPrefix(PackWriter.temporaryPrefix)
                let theirs = name.hasPrefix("tmp_") || name.hasPrefix(".tmp-")
                let orphan =
                    name.hasPrefix("pack-") && (name.hasSuffix(".pack") || name.hasSuffix(".idx"))
                    && !present.contains(String(name.prefix { $0 != "." }) + (name.hasSuffix(".pack") ? ".idx" : ".pack"))
                guard ours || theirs || orphan else { continue }
                if theirs, !ours {
                    let modified = (try? fileManager.attributesOfItem(atPath: folder + name))?[.modificationDate] as? Date
                    guard let modified, Date().timeIntervalSince(modified) > 3600 else { continue }
                }
                try? fileManager.removeItem(atPath: folder + name)
            }
        }
    }
}
