@testable import ForkStore
import Foundation

extension FuzzTarget {
    /// The scan for asset references (`AssetReferences`), which collection, the checks on
    /// incoming commits and the exchange read. Its quick test never misses a reference the
    /// parser finds (however its key is escaped); every object with a `$asset` member, outside
    /// another reference, is found once, as an asset or as a problem at its own pointer; an
    /// asset found decodes with `Asset`'s own `Codable` to the same value and encodes back to a
    /// reference the scan reads the same; a size limit turns exactly the larger assets into
    /// problems.
    static let assetReferences = FuzzTarget(name: "asset-references") { bytes in
        let quick = AssetReferences.mayHoldReferences(bytes)
        let scanned = AssetReferences(inJSON: bytes)
        guard let value = try? JSONValue(parsing: bytes) else {
            check(scanned.assets.isEmpty && scanned.problems.isEmpty, "references found in what does not parse: \(shown(bytes))")
            return
        }
        var references: [(pointer: String, members: [JSONValue.Member])] = []
        collectReferences(value, pointer: "", into: &references)
        if !quick {
            check(references.isEmpty, "the quick test missed a reference in \(shown(bytes))")
            return
        }
        check(scanned.assets.count + scanned.problems.count == references.count,
              "\(references.count) references, \(scanned.assets.count) assets and \(scanned.problems.count) problems in \(shown(bytes))")
        let pointers = Set(references.map(\.pointer))
        for problem in scanned.problems {
            check(pointers.contains(problem.pointer), "problem at \(problem.pointer), where there is no reference, in \(shown(bytes))")
        }
        // The well-formed references, in document order, are the assets.
        let wellFormed = references.filter { !scanned.problems.map(\.pointer).contains($0.pointer) }
        check(wellFormed.count == scanned.assets.count, "assets and references disagree in \(shown(bytes))")
        for (reference, asset) in zip(wellFormed, scanned.assets) {
            let decoded = try? JSONValueDecoder().decode(Asset.self, from: .object(reference.members))
            check(decoded == asset, "Asset decodes \(String(describing: decoded)), the scan \(asset), at \(reference.pointer)")
            guard let encoded = try? JSONValueEncoder().encode(asset) else {
                return check(false, "\(asset) does not encode")
            }
            let again = AssetReferences(in: encoded)
            check(again.assets == [asset] && again.problems.isEmpty, "\(asset) encodes to a reference the scan reads as \(again.assets)")
        }
        // A limit of the smallest size found turns the larger ones into problems, and only those.
        if let limit = scanned.assets.map(\.size).min() {
            let held = AssetReferences(in: value, maximumSize: limit)
            check(held.assets == scanned.assets.filter { $0.size <= limit }, "the limit \(limit) kept other assets")
            check(held.problems.count == scanned.problems.count + scanned.assets.filter { $0.size > limit }.count,
                  "the limit \(limit) made other problems")
        }
    }

    /// The objects with a `$asset` member, outside other references, with their JSON Pointers.
    private static func collectReferences(
        _ value: JSONValue, pointer: String, into found: inout [(pointer: String, members: [JSONValue.Member])]
    ) {
        switch value {
        case .object(let members):
            if members.contains(where: { $0.key.utf8.elementsEqual("$asset".utf8) }) {
                found.append((pointer, members))
                return
            }
            for member in members { collectReferences(member.value, pointer: pointer + "/" + JSONPointer.escape(member.key), into: &found) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { collectReferences(element, pointer: pointer + "/\(index)", into: &found) }
        default:
            break
        }
    }
}
