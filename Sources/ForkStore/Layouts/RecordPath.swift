import ForkStoreGit

/// Where a record lives in a commit's tree: `records/<s1>/<s2>/<name>.json`.
///
/// - **Shards** `s1` and `s2` are the first two and the next two hex digits of the git blob
///   id of the record id's UTF-8 bytes (`printf %s "$id" | git hash-object --stdin`), so
///   records spread evenly over 65,536 folders and a change to one record rewrites four
///   trees, whatever the collection's size.
/// - **Name**: the id with every byte outside `a-z 0-9 _ -` escaped, so that no id can escape
///   its folder (`/`, `..`, `.git`), collide with another on a case-insensitive disk, or carry
///   a control character: an uppercase ASCII letter is written `^` and its lowercase form
///   (`A` → `^a`); every other byte is `%` and two lowercase hex digits (`.` → `%2e`,
///   `é` → `%c3%a9`). A name that would be a Windows device name (`con`, `nul`, `com1`…) has
///   its first byte escaped. An encoding longer than 150 bytes is cut to its first 100 bytes
///   (never inside an escape), followed by `~` and the full 40-digit blob id of the record id.
///
/// The blob stores the exact id beside the record, so the name never needs decoding.
package struct RecordPath: Hashable, Sendable, CustomStringConvertible {
    /// The folder under the tree's root that holds every record.
    package static let root = "records"

    /// The two shard folders, e.g. `["4b", "82"]`.
    package let shards: [String]
    /// The file name, e.g. `hello^world.json`.
    package let fileName: String

    /// The path of the record with this id.
    package init(id: String) {
        let hash = ObjectID.blobHash(of: Array(id.utf8))
        let hex = hash.hex
        shards = [String(hex.prefix(2)), String(hex.dropFirst(2).prefix(2))]
        fileName = String(decoding: RecordPath.encodedName(id, hash: hash), as: UTF8.self) + ".json"
    }

    /// Whether `path` is the path of the record with `id`, compared as bytes: a listing of a
    /// tree checks every record it reads, and building the path's strings for it cost that
    /// listing about 6%.
    package static func isPath(_ path: String, of id: String) -> Bool {
        let hash = id.utf8.withContiguousStorageIfAvailable { ObjectID.hash(of: UnsafeRawBufferPointer($0), kind: .blob) }
            ?? ObjectID.blobHash(of: Array(id.utf8))
        let digits = Array("0123456789abcdef".utf8)
        let (first, second) = (Int(hash.bytes.0), Int(hash.bytes.1))
        var expected: [UInt8] = []
        expected.reserveCapacity(root.utf8.count + 7 + id.utf8.count + 5)
        expected += root.utf8
        expected += [UInt8(ascii: "/"), digits[first >> 4], digits[first & 0xF]]
        expected += [UInt8(ascii: "/"), digits[second >> 4], digits[second & 0xF], UInt8(ascii: "/")]
        expected += encodedName(id, hash: hash)
        expected += ".json".utf8
        return path.utf8.elementsEqual(expected)
    }

    /// Whether a tree path can hold a record: `records/<2 hex>/<2 hex>/<name>.json`, hex in
    /// lowercase. Readers ignore anything else in a records tree, and writers keep it.
    static func isRecordEntry(_ path: String) -> Bool {
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0].elementsEqual(root.utf8) && isShard(parts[1]) && isShard(parts[2])
            && isRecordFileName(parts[3])
    }

    /// A shard folder's name: two lowercase hexadecimal digits.
    static func isShard(_ name: some Collection<UInt8>) -> Bool {
        name.count == 2 && name.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// A record file's name: a name ending in `.json` (one that no id gives is a damaged record).
    static func isRecordFileName(_ name: some Collection<UInt8>) -> Bool {
        name.reversed().starts(with: ".json".utf8.reversed())
    }

    /// The full path from the tree's root.
    package var description: String {
        Self.root + "/" + shards[0] + "/" + shards[1] + "/" + fileName
    }

    static let maximumNameLength = 150
    static let keptPrefixLength = 100
    private static let deviceNames: Set<String> = [
        "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
        "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
    ]

    /// The file name's bytes without `.json`; `hash` is the id's blob id (for a name cut short).
    static func encodedName(_ id: String, hash: ObjectID) -> [UInt8] {
        // Built as bytes: a String per byte made listing 100,000 records measurably slower.
        var name: [UInt8] = []
        name.reserveCapacity(id.utf8.count + 8)
        var unitEnds: [Int] = []  // where each byte's encoding ends: a cut never splits one
        unitEnds.reserveCapacity(id.utf8.count)
        for byte in id.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"):
                name.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                name += [UInt8(ascii: "^"), byte + 32]
            default:
                name += escaped(byte)
            }
            unitEnds.append(name.count)
        }
        if name.isEmpty { return [UInt8(ascii: "%")] }  // an empty id
        // Device names are 3 or 4 bytes long: no String is built for any other name.
        if (3...4).contains(name.count), deviceNames.contains(String(decoding: name, as: UTF8.self)) {
            // `con` and friends (plain bytes only): escape the first byte so the name is not one.
            name.replaceSubrange(0..<1, with: escaped(name[0]))
            unitEnds = unitEnds.map { $0 + 2 }
        }
        if name.count > maximumNameLength {
            let cut = unitEnds.last { $0 <= keptPrefixLength } ?? 0
            name = Array(name[..<cut]) + Array("~".utf8) + Array(hash.hex.utf8)
        }
        return name
    }

    private static func escaped(_ byte: UInt8) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        return [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
    }
}
