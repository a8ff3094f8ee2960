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
    /// When the commit was made (committer time).
    public let date: Date
    /// The writer's model version; nil when the commit has no `Model-Version` trailer.
    public let modelVersion: Int?
    /// The on-disk format version; nil when the commit has no `Format-Version` trailer.
    public let formatVersion: Int?
    /// The Lamport counter: one more than the highest of the parents'. 0 when absent.
    public let lamport: Int
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
        trailers.first { $0.key.caseInsensitiveCompare(key) == .orderedSame }?.value
    }

    init(_ object: CommitObject) {
        let (text, trailers) = CommitMessage.split(object.message)
        self.id = CommitID(object.id)
        self.parents = object.parents.map { CommitID($0) }
        self.tree = object.tree
        self.date = Date(timeIntervalSince1970: TimeInterval(object.time))
        self.message = text
        self.trailers = trailers
        func number(_ key: String) -> Int? {
            trailers.first { $0.key.caseInsensitiveCompare(key) == .orderedSame }.flatMap { Int($0.value) }
        }
        self.modelVersion = number(TrailerKey.modelVersion)
        self.formatVersion = number(TrailerKey.formatVersion)
        self.lamport = max(0, number(TrailerKey.lamport) ?? 0)
    }
}

extension Commit {
    /// The Lamport counter of a commit made on top of this one. Saturates, so a hostile
    /// `Lamport: 9223372036854775807` trailer cannot make the next write trap.
    var nextLamport: Int { lamport == .max ? .max : lamport + 1 }

    /// The order that decides which side of a merge dominates: higher Lamport counter first,
    /// then the higher commit id. It depends only on the commits, so every replica agrees.
    func outranks(_ other: Commit) -> Bool {
        lamport != other.lamport ? lamport > other.lamport : other.id < id
    }
}
