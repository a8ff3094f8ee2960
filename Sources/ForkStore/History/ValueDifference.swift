/// One difference between two stored values, found by comparing their canonical JSON.
public struct ValueDifference: Sendable, Hashable, CustomStringConvertible {
    /// Whether a part of the value appeared, disappeared or changed.
    public enum Kind: Sendable, Hashable {
        /// Present only in the newer value.
        case added
        /// Present only in the older value.
        case removed
        /// Present in both with different JSON.
        case changed
    }

    /// Object keys and array indexes from the top of the value; empty for the whole value.
    public let path: [String]
    /// Whether it was added, removed or changed.
    public let kind: Kind
    /// The JSON before; nil for an addition.
    public let old: JSONValue?
    /// The JSON after; nil for a removal.
    public let new: JSONValue?

    /// The path written as a JSON Pointer (RFC 6901), for example `/notes/3/title`.
    public var pointer: String {
        JSONPointer.string(path)
    }

    public var description: String {
        let where_ = pointer.isEmpty ? "/" : pointer
        switch kind {
        case .added: return "+ \(where_)"
        case .removed: return "- \(where_)"
        case .changed: return "~ \(where_)"
        }
    }

    /// The differences between two JSON documents (nil meaning no value).
    static func between(_ old: JSONValue?, _ new: JSONValue?, at path: [String] = []) -> [ValueDifference] {
        switch (old, new) {
        case (nil, nil): return []
        case (nil, .some): return [ValueDifference(path: path, kind: .added, old: nil, new: new)]
        case (.some, nil): return [ValueDifference(path: path, kind: .removed, old: old, new: nil)]
        case (.object(let before), .object(let after)):
            return JSONValue.alignedMembers(before, after).flatMap { member in
                between(member.values[0], member.values[1], at: path + [member.key])
            }
        case (.array(let before), .array(let after)):
            var differences: [ValueDifference] = []
            for index in 0..<max(before.count, after.count) {
                differences += between(
                    index < before.count ? before[index] : nil,
                    index < after.count ? after[index] : nil,
                    at: path + [String(index)])
            }
            return differences
        case (.some(let before), .some(let after)):
            return before == after ? [] : [ValueDifference(path: path, kind: .changed, old: before, new: after)]
        }
    }
}
