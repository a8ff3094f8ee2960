import Foundation

/// The on-disk format this build writes and the highest it reads.
package enum FormatVersion {
    /// The current on-disk format. Written into every commit and into the manifest.
    package static let current = 1
}

/// The file `forkstore.json` in a store's git directory: marks the folder as a store and
/// records its format. Its JSON Schema is `Schema/manifest.schema.json`.
struct Manifest: Codable, Equatable {
    static let fileName = "forkstore.json"

    /// Always "forkstore".
    var format: String
    var formatVersion: Int
    /// The kind of resource the store holds: "value" (one Codable value) or "records" (a keyed
    /// collection, one blob per record).
    var resource: String

    /// The kinds of resource a store can hold.
    enum Kind: String {
        case value
        case records
    }

    static func current(_ kind: Kind) -> Manifest {
        Manifest(format: "forkstore", formatVersion: FormatVersion.current, resource: kind.rawValue)
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        return try CanonicalJSON.canonicalize(Array(encoder.encode(self)))
    }

    /// Reads and checks the manifest of the store whose git directory is `gitDirectory`.
    static func read(gitDirectory: String, storePath: String) throws(StoreError) -> Manifest {
        let path = (gitDirectory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError.notAStore(path: storePath, reason: "it is a git repository without a \(fileName) manifest")
        }
        return try decode(Array(data), storePath: storePath)
    }

    /// Checks a manifest's bytes, as read from the store at `storePath` (named in errors).
    static func decode(_ data: [UInt8], storePath: String) throws(StoreError) -> Manifest {
        // Strictly: valid JSON without a key twice (decoders disagree on which one wins), then
        // the three members; unknown members are ignored.
        let manifest: Manifest
        do {
            _ = try CanonicalJSON.parse(data)
            manifest = try JSONDecoder().decode(Manifest.self, from: Data(data))
        } catch {
            throw StoreError.notAStore(path: storePath, reason: "its \(fileName) manifest is not valid JSON with format, formatVersion and resource")
        }
        guard manifest.format == "forkstore" else {
            throw StoreError.notAStore(path: storePath, reason: "its manifest names format '\(manifest.format)'")
        }
        guard manifest.formatVersion >= 1 else {
            throw StoreError.notAStore(path: storePath, reason: "its manifest's formatVersion \(manifest.formatVersion) is not 1 or higher")
        }
        guard manifest.formatVersion <= FormatVersion.current else {
            throw StoreError.newerFormatVersion(found: manifest.formatVersion, supported: FormatVersion.current)
        }
        guard Kind(rawValue: manifest.resource) != nil else {
            throw StoreError.notAStore(path: storePath, reason: "its manifest's resource '\(manifest.resource)' is neither 'value' nor 'records'")
        }
        return manifest
    }
}
