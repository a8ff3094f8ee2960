import Foundation
import ForkStoreGit

/// The id of a commit: 40 lowercase hexadecimal digits.
public struct CommitID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    let objectID: ObjectID

    /// Parses a full commit id; returns nil unless `hex` is 40 hexadecimal digits.
    public init?(_ hex: String) {
        guard let id = ObjectID(hex: hex) else { return nil }
        self.objectID = id
    }

    init(_ id: ObjectID) {
        self.objectID = id
    }

    /// The full id in lowercase hexadecimal.
    public var hex: String { objectID.hex }

    /// The first 10 digits, enough to name a commit in messages and logs.
    public var short: String { String(hex.prefix(10)) }

    public var description: String { hex }

    public static func < (lhs: CommitID, rhs: CommitID) -> Bool { lhs.objectID < rhs.objectID }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ObjectID(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a commit id"))
        }
        self.objectID = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// One commit in a store's history.
public struct Commit: Sendable, Hashable, Identifiable {
    /// The commit's id.
    public let id: CommitID
    /// Parents in git's order: for a merge, the fork merged into comes first.
    public let parents: [CommitID]
    /// When the commit was made: its ``clock``'s physical time, to the millisecond (for
    /// commits without a `Clock` trailer, the committer time, to the second).
    public let date: Date
    /// The hybrid logical clock the commit was made at. "Later" in every merge decision means
    /// a higher clock. Commits written before the `Clock` trailer stand in with their
    /// committer time and Lamport counter.
    public let clock: HybridTime
    /// The replica (one store on one device) that wrote the commit; nil for commits written
    /// before the `Replica` trailer, or by other tools.
    public let replica: String?
    /// The writer's model version; nil when the commit has no valid `Model-Version` trailer.
    public let modelVersion: Int?
    /// The on-disk format version; nil when the commit has no valid `Format-Version` trailer.
    public let formatVersion: Int?
    /// The Lamport counter: one more than the highest of the parents'. 0 when absent.
    public let lamport: Int
    /// The `Record-Count` trailer of a record collection's commit; nil when absent.
    let recordCount: Int?
    /// For a checkpoint, the commit it stands in for (its `Checkpoint-Of` trailer): a root
    /// commit with that commit's tree, whose history was compacted away (see
    /// <doc:HistoryHorizon>); nil for every other commit.
    public let checkpointOf: CommitID?
    /// For a checkpoint of a commit whose history was compacted before, the checkpoint at the
    /// root of that history (`Checkpoint-After`): the lineage this one was cut from.
    let checkpointAfter: CommitID?
    /// The message without its trailer block.
    public let message: String
    /// The trailers, in order.
    public let trailers: [Trailer]
    /// The commit's root tree.
    let tree: ObjectID

    /// Whether the commit has two or more parents.
    public var isMerge: Bool { parents.count > 1 }

    /// The first line of the message.
    public var subject: String {
        String(message.split(separator: "\n", maxSplits: 1).first ?? "")
    }

    /// The value of the first trailer with this key.
    public func trailer(_ key: String) -> String? {
        trailers.values(forKey: key).first
    }

    /// Why the commit's message or stamp is malformed (Schema/FORMAT.md 5); nil when it is
    /// well formed. A malformed commit's data is never read.
    let problem: String?

    init(_ object: CommitObject) {
        let parsed = CommitMessage.parse(object.message)
        let stamp = CommitStamp(parsed)
        self.id = CommitID(object.id)
        self.parents = object.parents.map { CommitID($0) }
        self.tree = object.tree
        self.message = parsed.text
        self.trailers = parsed.trailers
        self.checkpointOf = stamp.checkpointOf
        self.checkpointAfter = stamp.checkpointAfter
        self.problem = stamp.problem ?? (stamp.checkpointOf != nil && !object.parents.isEmpty
            ? "it is a checkpoint (Checkpoint-Of) with parents; a checkpoint is a root commit" : nil)
        self.modelVersion = stamp.modelVersion
        self.formatVersion = stamp.formatVersion
        self.lamport = stamp.lamport
        self.replica = stamp.replica
        self.recordCount = stamp.recordCount
        if let clock = stamp.clock {
            self.clock = clock
            self.date = clock.date
        } else {
            let (milliseconds, overflow) = object.time.multipliedReportingOverflow(by: 1000)
            self.clock = HybridTime(milliseconds: overflow ? (object.time < 0 ? .min : .max) : milliseconds, counter: lamport)
            self.date = Date(timeIntervalSince1970: TimeInterval(object.time))
        }
    }
}

extension Commit {
    /// The Lamport counter of a commit made on top of this one. Saturates, so a hostile
    /// `Lamport: 9223372036854775807` trailer cannot make the next write trap.
    /// The Lamport counter of a commit on top of this one. It stays within the trailer's range
    /// (below 10^15): a peer's commit at the top of the range must not make this store write
    /// commits every reader refuses.
    var nextLamport: Int { min(lamport, CommitStamp.limit - 2) + 1 }

    /// Whether this commit is the later write of the two, which dominates a merge: the higher
    /// clock, then the higher replica id, then the higher commit id. It depends only on the
    /// two commits, so every replica agrees.
    func outranks(_ other: Commit) -> Bool {
        if clock != other.clock { return clock > other.clock }
        if replica != other.replica { return (replica ?? "") > (other.replica ?? "") }
        return other.id < id
    }
}
