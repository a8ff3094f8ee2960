import ForkStoreGit
import ForkStorePack

/// The trees of a fetch, read for its check from the packs of the repository that received it,
/// each mapped whole (``MappedPacks``), with what each delta made kept for the next read.
///
/// A first sync's walk reads every tree of every commit it checks, newest commit first. The
/// newest version of a tree lies whole in the pack, older ones as deltas on the next newer:
/// read here, each costs one delta applied to the version the commit before read. Through
/// libgit2 the walk of a 100,000-record store in 101 commits took 5 s on one core, most of it
/// rebuilding chains 23 deltas deep on average, and mapping and unmapping pack windows.
///
/// Only a head start: a tree not found here (one the store already held), or that cannot be
/// read here whole, is left to the caller, which reads it through libgit2 and says what fails.
final class FetchedTrees {
    private let packs: MappedPacks
    private let inflater: Inflater
    /// Two commits' trees and more: the 256 folders under `records/` of a 100,000-record store,
    /// each listing its 256 shard folders, take about 2 MB a version.
    private var cache = ObjectCache(budget: 8 << 20)
    private let maximumSize: Int

    /// The packs of `repository`, whose trees are read if at most `maximumSize` bytes each;
    /// nil when a reader cannot be made.
    init?(_ repository: Repository, maximumSize: Int) {
        guard let inflater = try? Inflater() else { return nil }
        // Pages given back often: each read maps the pages around it too, and the same packs
        // are mapped by libgit2's windows as well.
        (packs, self.inflater, self.maximumSize) = (MappedPacks(repository.packs(), residentBudget: 4 << 20), inflater, maximumSize)
    }

    /// The entries of `tree`, or nil when it is to be read elsewhere.
    func entries(of tree: ObjectID) -> [TreeEntry]? {
        guard let object = try? packs.object(tree, maximumSize: maximumSize, inflater: inflater, cache: &cache), object.kind == .tree else {
            return nil
        }
        return object.bytes.withUnsafeBytes { try? TreeEntry.entries(parsing: $0, of: tree) }
    }
}
