@testable import ForkStore
import Foundation

extension FuzzTarget {
    /// The strict JSON parser (every blob, manifest and participants file goes through it).
    /// What it accepts: canonical form is a fixed point (serialize → parse gives the same value,
    /// serialize again the same bytes), and Foundation's JSONSerialization accepts it too.
    static let json = FuzzTarget(name: "json") { bytes in
        guard let value = try? CanonicalJSON.parse(bytes) else { return }
        let canonical = CanonicalJSON.serialize(value)
        let reparsed: JSONValue
        do {
            reparsed = try CanonicalJSON.parse(canonical)
        } catch {
            check(false, "canonical form of \(shown(bytes)) does not parse: \(error)")
            return
        }
        check(value.hasSortedDistinctKeys, "members of \(shown(bytes)) are not sorted by their keys' bytes, or not distinct")
        check(reparsed == value, "canonical form of \(shown(bytes)) parses to another value")
        check(CanonicalJSON.serialize(reparsed) == canonical, "canonical form of \(shown(bytes)) is not a fixed point")
        // Numbers are exact decimals here, up to 10^309; JSONSerialization refuses a document
        // with one beyond Double's range (1.8e308 to 1e309), by design not ours.
        if !value.holdsNumberBeyondDouble {
            check((try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil,
                  "JSONSerialization refuses what the strict parser accepts: \(shown(bytes))")
        }
    }
}

extension JSONValue {
    /// Whether every object in it has its members in strictly increasing order of their keys'
    /// UTF-8 bytes, as the parser promises (checked here on the keys themselves).
    var hasSortedDistinctKeys: Bool {
        switch self {
        case .object(let members):
            zip(members, members.dropFirst()).allSatisfy { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
                && members.allSatisfy(\.value.hasSortedDistinctKeys)
        case .array(let elements): elements.allSatisfy(\.hasSortedDistinctKeys)
        default: true
        }
    }

    /// Whether a number in it is too large for a finite Double.
    var holdsNumberBeyondDouble: Bool {
        switch self {
        case .number(let literal): Double(literal)?.isFinite != true
        case .array(let elements): elements.contains { $0.holdsNumberBeyondDouble }
        case .object(let members): members.contains { $0.value.holdsNumberBeyondDouble }
        case .null, .bool, .string: false
        }
    }
}
