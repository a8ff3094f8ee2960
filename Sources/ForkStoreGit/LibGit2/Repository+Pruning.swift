internal import CLibGit2
import Foundation

extension Repository {
    /// What ``repackReachable()`` did.
    package struct Pruning: Sendable {
        /// Objects in the new pack: everything a reference reaches.
        package var kept: Int
        /// Packs and loose objects removed (their reachable objects are in the new pack).
        package var removedPacks: Int
        package var removedLoose: Int
        /// Packs and loose objects left for being younger than the grace period.
        package var young: Int
    }

    /// Writes every object a reference reaches into one new pack, reads it back whole, then
    /// removes the packs and loose objects that were there before: what `git gc --prune=now`
    /// does, for when a dropped archive left old history unreachable. Only files that existed
    /// before the walk started are removed, and only once the new pack is verified; the caller
    /// holds the writer lock, so no reference moves meanwhile. Files younger than
    /// `gracePeriod` stay, as `git gc` keeps recent loose objects: another process may have
    /// written objects it has not yet referenced (a write before it takes the lock, a fetch).
    /// libgit2's packbuilder holds every object it packs in memory.
    package func repackReachable(gracePeriod: TimeInterval) throws(GitError) -> Pruning {
        let cutoff = Date().addingTimeInterval(-gracePeriod)
        func old(_ path: String) -> Bool {
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
            return modified.map { $0 < cutoff } ?? false
        }
        let allPacks = packs(), allLoose = looseObjects()
        let oldPacks = allPacks.filter { old($0.base + ".pack") && old($0.base + ".idx") }
        let oldLoose = allLoose.filter { old($0.path) }
        var builder: OpaquePointer?
        try check("git_packbuilder_new") { git_packbuilder_new(&builder, pointer) }
        defer { git_packbuilder_free(builder) }
        git_packbuilder_set_threads(builder, 0)
        var walker: OpaquePointer?
        try check("git_revwalk_new") { git_revwalk_new(&walker, pointer) }
        defer { git_revwalk_free(walker) }
        for reference in try references(withPrefix: "refs/") {
            var oid = reference.target.raw
            if git_revwalk_push(walker, &oid) < 0 {
                git_error_clear()
                try check("git_packbuilder_insert_recur") { git_packbuilder_insert_recur(builder, &oid, nil) }
            }
        }
        try check("git_packbuilder_insert_walk") { git_packbuilder_insert_walk(builder, walker) }
        let count = git_packbuilder_object_count(builder)
        try check("git_packbuilder_write") { git_packbuilder_write(builder, nil, 0, nil, nil) }
        guard let name = git_packbuilder_name(builder).map({ String(cString: $0) }) else {
            throw GitError(function: "git_packbuilder_name", rawCode: -1, errorClass: 0, message: "the new pack has no name")
        }
        try refreshObjects()
        let base = (gitDirectory.hasSuffix("/") ? gitDirectory : gitDirectory + "/") + "objects/pack/pack-" + name
        try packing("repacking what references reach") { () throws(PackError) in
            let index = try PackIndex(path: base + ".idx")
            try PackReader(pack: base + ".pack", index: index).verify()
            guard index.count == count else {
                throw PackError(.damaged, "the new pack holds \(index.count) objects, not \(count); nothing was removed")
            }
        }
        var pruning = Pruning(
            kept: count, removedPacks: 0, removedLoose: 0, young: allPacks.count - oldPacks.count + allLoose.count - oldLoose.count)
        for pack in oldPacks where (pack.base as NSString).lastPathComponent != "pack-" + name {
            // The index first: without it, no reader uses the pack.
            for suffix in [".idx", ".pack", ".rev", ".bitmap"] { unlink(pack.base + suffix) }
            pruning.removedPacks += 1
        }
        for object in oldLoose {
            try? FileManager.default.removeItem(atPath: object.path)
            pruning.removedLoose += 1
        }
        try refreshObjects()
        return pruning
    }
}
