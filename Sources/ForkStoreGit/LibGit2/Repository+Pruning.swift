internal import CLibGit2
import Foundation

extension Repository {
    /// What ``repackReachable()`` did.
    package struct Pruning: Sendable {
        /// Objects kept: in the new pack, and loose ones a reference reaches.
        package var kept: Int
        /// Packs and loose objects removed (their reachable objects are in the new pack).
        package var removedPacks: Int
        package var removedLoose: Int
        /// Packs and loose objects left for being younger than the grace period.
        package var young: Int
        /// Why nothing was freed, when a reference names something this walk does not follow.
        package var skipped: String?
    }

    /// Keeps every object a reference reaches and removes the packs and loose objects that
    /// were there before: what `git gc --prune=now` does, for when a dropped archive left old
    /// history unreachable. The reachable objects of the old packs are copied as they are,
    /// deltas and all (a delta whose base goes is written whole), into one new pack
    /// (``RollUp/rewrite(keeping:in:fsync:externalBase:)``), which is read back whole before
    /// any old pack goes; reachable loose objects stay. Only files that existed before the
    /// walk started are removed; the caller holds the writer lock, so no reference moves
    /// meanwhile. Files younger than `gracePeriod` stay, as `git gc` keeps recent loose
    /// objects: another process may have written objects it has not yet referenced (a write
    /// before it takes the lock, a fetch).
    ///
    /// The walk reads each commit and tree once and no blob, and remembers a byte per object
    /// of the old packs and an id per commit and tree: libgit2's packbuilder, used before,
    /// took over 20 minutes to walk a 10,000-commit history of 100,000 records.
    package func repackReachable(gracePeriod: TimeInterval) throws(GitError) -> Pruning {
        let cutoff = Date().addingTimeInterval(-gracePeriod)
        func old(_ path: String) -> Bool {
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
            return modified.map { $0 < cutoff } ?? false
        }
        let allPacks = packs(), allLoose = looseObjects()
        let oldPacks = allPacks.filter { old($0.base + ".pack") && old($0.base + ".idx") }
        let oldLoose = allLoose.filter { old($0.path) }
        let young = allPacks.count - oldPacks.count + allLoose.count - oldLoose.count
        let heads = try references(withPrefix: "refs/").map(\.target)
        for head in heads where (try? readCommit(head)) == nil {
            return Pruning(kept: 0, removedPacks: 0, removedLoose: 0, young: young, skipped: "a reference names \(head.hex), which is not a commit")
        }
        var kept = try packing("freeing the old history") { () throws(PackError) in try KeptObjects(packs: oldPacks) }
        let looseIDs = Set(oldLoose.map(\.id))
        var keptLoose = Set<ObjectID>()
        func keep(_ id: ObjectID) {
            kept.keep(id)
            if looseIDs.contains(id) { keptLoose.insert(id) }
        }
        var walked = Set<ObjectID>(), commits = heads, trees: [ObjectID] = []
        while let id = commits.popLast() {
            guard walked.insert(id).inserted else { continue }
            let commit = try readCommit(id)
            keep(id)
            commits += commit.parents
            trees.append(commit.tree)
            while let tree = trees.popLast() {
                guard walked.insert(tree).inserted else { continue }
                keep(tree)
                for entry in try treeEntriesBypassingCache(tree) {
                    switch entry.kind {
                    case .tree: trees.append(entry.id)
                    case .blob: keep(entry.id)
                    case .other: break  // a submodule's commit lives in another repository
                    }
                }
            }
        }
        let count = try packing("freeing the old history") { () throws(PackError) in
            try kept.markDeltasWithoutBases()
            return try RollUp.rewrite(
                keeping: kept, in: gitDirectory + "objects/pack", fsync: Libgit2.isFsyncEnabled,
                readWhole: { [self] id in try? readObject(id) }, externalBase: { [self] id in try? readObject(id) })
        }
        var pruning = Pruning(kept: count + keptLoose.count, removedPacks: oldPacks.count, removedLoose: 0, young: young)
        for object in oldLoose where !keptLoose.contains(object.id) {
            try? FileManager.default.removeItem(atPath: object.path)
            pruning.removedLoose += 1
        }
        try refreshObjects()
        return pruning
    }
}
