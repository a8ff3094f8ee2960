/// A parsed JSON document, kept exactly: object keys compare by their UTF-8 bytes (not by
/// Swift's canonical string equivalence), and numbers keep their canonical literal text so
/// large integers never pass through `Double`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number in canonical form: the exact decimal it writes, whole numbers as their digits
    /// (`1.0` and `1e3` are `1` and `1000`), so every form of one value is one literal.
    /// ``init(parsing:)`` writes numbers this way.
    case number(String)
    /// A string, exactly as stored (not normalized).
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Members sorted by the UTF-8 bytes of their keys, with no duplicate key.
    case object([Member])

    /// One member of a JSON object.
    public struct Member: Sendable, Hashable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// Makes a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }

        public static func == (lhs: Member, rhs: Member) -> Bool {
            lhs.key.hasSameBytes(as: rhs.key) && lhs.value == rhs.value
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(key.utf8.count)
            for byte in key.utf8 { hasher.combine(byte) }
            hasher.combine(value)
        }
    }

    /// The value of `key` in an object, by exact UTF-8 comparison. Setting a value on an object
    /// adds or replaces the member (keeping members sorted); setting nil removes it. Setting on
    /// anything but an object does nothing.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members.first { $0.key.hasSameBytes(as: key) }?.value
        }
        set {
            guard case .object(var members) = self else { return }
            members.removeAll { $0.key.hasSameBytes(as: key) }
            if let newValue { members.append(Member(key: key, value: newValue)) }
            self = JSONValue.object(unsorted: members) ?? .object(members)
        }
    }
}

extension JSONValue {
    /// Parses JSON text as ForkStore reads every blob: strictly (a key given twice, a lone
    /// surrogate, trailing text or a number out of range is refused), keeping strings exactly
    /// as written and numbers in their canonical form. Use it to build the value of a
    /// ``ConflictResolution/value(_:)`` from JSON text, or to check text before decoding it.
    ///
    /// - Throws: ``CanonicalJSONError``, with the byte offset where reading stopped.
    public init(parsing json: [UInt8]) throws(CanonicalJSONError) {
        self = try CanonicalJSON.parse(json)
    }

    /// The value in ForkStore's canonical JSON form, the form of every blob it writes: UTF-8,
    /// object members sorted by the UTF-8 bytes of their keys, two spaces of indentation per
    /// level, minimal escaping, ending in one newline. The same value always gives the same
    /// bytes, in every process, so they can be compared, hashed or shown. `Schema/FORMAT.md`
    /// specifies the form in full.
    public var canonicalBytes: [UInt8] { CanonicalJSON.serialize(self) }
}

extension JSONValue {
    /// Lines up the members of several objects by key: every key that any of them has, once
    /// (compared by UTF-8 bytes), in canonical order, with each object's value or nil.
    package static func alignedMembers(_ objects: [Member]...) -> [(key: String, values: [JSONValue?])] {
        var byKey: [[UInt8]: (key: String, values: [JSONValue?])] = [:]
        for (index, members) in objects.enumerated() {
            for member in members {
                let bytes = Array(member.key.utf8)
                byKey[bytes, default: (member.key, Array(repeating: nil, count: objects.count))].values[index] = member.value
            }
        }
        return byKey.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    /// Builds an object from members in any order, sorting them canonically.
    /// Returns nil if two members have the same key.
    static func object(unsorted members: [Member]) -> JSONValue? {
        // Canonical input is sorted already, keys strictly increasing: no duplicate, no sort.
        if zip(members, members.dropFirst()).allSatisfy({ $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            return .object(members)
        }
        let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (left, right) in zip(sorted, sorted.dropFirst()) where left.key.hasSameBytes(as: right.key) {
            return nil
        }
        return .object(sorted)
    }
}
