@testable import ForkStore
import Foundation

extension FuzzTarget {
    /// The manifest (`forkstore.json`, beside HEAD in a store's git directory). What it accepts
    /// is valid JSON to the strict parser and to JSONSerialization, has the three members as
    /// the schema says, and encodes back to a manifest read the same.
    static let manifest = FuzzTarget(name: "manifest") { bytes in
        guard let manifest = try? Manifest.decode(bytes, storePath: "/fuzz") else {
            // Refused: then it is not valid JSON, or the schema does not take it.
            guard let value = try? CanonicalJSON.parse(bytes), value["format"] == .string("forkstore"),
                  value["formatVersion"] == .number("1"),
                  value["resource"] == .string("value") || value["resource"] == .string("records")
            else { return }
            return check(false, "a manifest the schema takes is refused: \(shown(bytes))")
        }
        check(manifest.format == "forkstore", "format \(manifest.format) accepted from \(shown(bytes))")
        check((1...FormatVersion.current).contains(manifest.formatVersion), "formatVersion \(manifest.formatVersion) accepted")
        check(Manifest.Kind(rawValue: manifest.resource) != nil, "resource \(manifest.resource) accepted")
        check((try? CanonicalJSON.parse(bytes)) != nil, "the strict parser refuses an accepted manifest \(shown(bytes))")
        let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
        check(object?["format"] as? String == manifest.format && object?["resource"] as? String == manifest.resource,
              "JSONSerialization reads another manifest from \(shown(bytes))")
        guard let encoded = try? manifest.encoded() else { return check(false, "\(manifest) does not encode") }
        check((try? Manifest.decode(encoded, storePath: "/fuzz")) == manifest, "\(manifest) does not read back")
    }
}
