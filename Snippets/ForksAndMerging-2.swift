import ForkStore

struct Tally: Resource, Mergeable {
    static let modelVersion = 1
    var items: Set<String>

    func merged(with other: Tally, ancestor: Tally) throws -> Tally {
        let removed = ancestor.items.subtracting(items).union(ancestor.items.subtracting(other.items))
        let added = items.subtracting(ancestor.items).union(other.items.subtracting(ancestor.items))
        return Tally(items: ancestor.items.subtracting(removed).union(added))
    }
}
