/// Whether two values are equal, when their type is `Equatable`; nil when it is not. Lets a
/// write of an `Equatable` value that only re-encodes the same value in other bytes (a `Set`
/// stored in hash order by an earlier ForkStore) make no commit.
func equalIfEquatable<Value>(_ one: Value, _ other: Value) -> Bool? {
    guard let one = one as? any Equatable else { return nil }
    func compare<Comparable: Equatable>(_ one: Comparable) -> Bool { (other as? Comparable) == one }
    return compare(one)
}
