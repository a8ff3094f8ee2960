import Foundation

/// How much history a store keeps: everything (the default), or a horizon of days or commits
/// before which ``VersionedStore/pack()-5bhjq`` replaces the history by a checkpoint (see
/// <doc:HistoryHorizon>).
///
/// ```swift
/// var options = StoreOptions()
/// options.history = .keepCommits(10_000)
/// ```
///
/// Compaction never changes what a fork holds: the checkpoint has the tree of the commit it
/// stands in for, and every later commit is replayed onto it with the same tree and message.
public struct HistoryPolicy: Sendable, Hashable, CustomStringConvertible {
    enum Horizon: Sendable, Hashable {
        case everything
        case days(Int)
        case commits(Int)
    }

    let horizon: Horizon
    /// What happens to the old history a checkpoint replaces.
    public var archive: ArchivePolicy

    /// Keep every commit for ever: nothing is compacted. The default.
    public static let keepEverything = HistoryPolicy(horizon: .everything, archive: .keep)

    /// Keep the commits of the last `days` days on `main`'s first-parent history; the newest
    /// commit older than that becomes the checkpoint. On its own (in `pack()` and on the
    /// exchange's schedule) a store compacts once its oldest commit is older than twice `days`.
    public static func keepDays(_ days: Int, archive: ArchivePolicy = .keep) -> HistoryPolicy {
        HistoryPolicy(horizon: .days(max(days, 0)), archive: archive)
    }

    /// Keep the last `count` commits of `main`'s first-parent history; the commit `count`
    /// steps below the head becomes the checkpoint. On its own (in `pack()` and on the
    /// exchange's schedule) a store compacts once the history holds more than twice `count`
    /// commits, so each compaction replays at most half of what it keeps.
    public static func keepCommits(_ count: Int, archive: ArchivePolicy = .keep) -> HistoryPolicy {
        HistoryPolicy(horizon: .commits(max(count, 1)), archive: archive)
    }

    /// Whether the policy never compacts.
    public var keepsEverything: Bool { horizon == .everything }

    /// The policy in words, such as `keep 10000 commits, archive dropped`.
    public var description: String {
        let archived = archive == .keep ? "" : ", archive dropped"
        switch horizon {
        case .everything: return "keep everything"
        case .days(let days): return "keep \(days) day\(days == 1 ? "" : "s")\(archived)"
        case .commits(let count): return "keep \(count) commit\(count == 1 ? "" : "s")\(archived)"
        }
    }

    /// Whether a history of `length` first-parent commits, whose oldest is `root` (nil: not
    /// reached yet), has grown to where a policy compacts again on its own (in `pack()` and on
    /// the exchange's schedule): past twice its commits, or with its oldest commit older than
    /// twice its days. The slack keeps what each compaction replays, the commits kept, below
    /// the commits written since the last one.
    func isDue(root: Commit?, length: Int, now: Date) -> Bool {
        switch horizon {
        case .everything: return false
        case .commits(let count): return length - count > count
        case .days(let days):
            guard let root else { return false }
            return root.date < now.addingTimeInterval(-2 * Double(days) * 86_400)
        }
    }

    /// Whether `commit`, `stepsBelowHead` first-parent steps below a fork's head, is where
    /// the policy puts the horizon: the commit `count` steps below the head, or the newest
    /// commit older than `days` days.
    func isHorizon(_ commit: Commit, stepsBelowHead: Int, now: Date) -> Bool {
        switch horizon {
        case .everything: return false
        case .commits(let count): return stepsBelowHead >= count
        case .days(let days): return commit.date < now.addingTimeInterval(-Double(days) * 86_400)
        }
    }
}

/// What happens to the old history a checkpoint replaces.
public enum ArchivePolicy: Sendable, Hashable {
    /// Keep it under an archive ref (`refs/forkstore/archive/<checkpoint>`), locally and on
    /// the remote: every old commit stays reachable, migration replay still reads it, and
    /// replicas still on the old history carry their commits over by three-way merges.
    case keep
    /// Remove the archive refs once the new lineage is in place; the next
    /// ``VersionedStore/pack()-5bhjq`` frees the old commits. Replicas still on the old history
    /// carry their commits over by the two-way salvage.
    case drop
}
