import ForkStore

/// A test resource where lost writes show: every write adds a unique item, merges take the
/// union (add-wins), and a removal on one side wins only where the other side kept the item.
public struct Tally: Resource, Mergeable, Equatable {
    public static let modelVersion = 1

    public var items: Set<String>

    public init(_ items: Set<String> = []) {
        self.items = items
    }

    public func merged(with subordinate: Tally, ancestor: Tally) throws -> Tally {
        let removed = ancestor.items.subtracting(items).union(ancestor.items.subtracting(subordinate.items))
        let added = items.subtracting(ancestor.items).union(subordinate.items.subtracting(ancestor.items))
        return Tally(ancestor.items.subtracting(removed).union(added))
    }

    public func salvaged(with subordinate: Tally) throws -> Tally {
        Tally(items.union(subordinate.items))
    }

    enum CodingKeys: String, CodingKey { case items }

    public init(from decoder: any Decoder) throws {
        items = try decoder.container(keyedBy: CodingKeys.self).decode(Set<String>.self, forKey: .items)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items.sorted(), forKey: .items)
    }
}

extension Store where Value == Tally {
    /// Adds one item in one commit.
    @discardableResult
    public func add(_ item: String, to fork: Fork = .main) throws -> Commit {
        try update(fork, message: "Add \(item)") { tally in
            var next = tally ?? Tally()
            next.items.insert(item)
            tally = next
        }
    }

    /// The items on a fork (empty when it holds no value).
    public func items(_ fork: Fork = .main) throws -> Set<String> {
        try value(in: fork)?.items ?? []
    }
}
