@testable import ForkStore
import ForkStoreGit
import Foundation

extension FuzzTarget {
    /// Record paths: the input (valid UTF-8) is a record id. Its path is a record entry, in its
    /// id's shards, of safe bytes only, and its name decodes back to the id (or, when cut, to
    /// a prefix of it, followed by the id's full blob id). Any input is also tried as a tree
    /// path (readers check every path of a fetched tree).
    static let recordPath = FuzzTarget(name: "record-path") { bytes in
        _ = RecordPath.isRecordEntry(String(decoding: bytes, as: UTF8.self))
        guard let id = String(validating: bytes, as: UTF8.self) else { return }
        let path = RecordPath(id: id)
        let hash = ObjectID.blobHash(of: bytes).hex
        check(RecordPath.isRecordEntry(path.description), "path \(path) of \(shown(bytes)) is not a record entry")
        check(path.shards == [String(hash.prefix(2)), String(hash.dropFirst(2).prefix(2))], "shards of \(shown(bytes))")
        let name = Array(path.fileName.utf8.dropLast(5))
        check(path.fileName.hasSuffix(".json"), "file name \(path.fileName)")
        let safe = Set("abcdefghijklmnopqrstuvwxyz0123456789_-%^~".utf8)
        check(name.allSatisfy { safe.contains($0) }, "name \(path.fileName) of \(shown(bytes)) holds an unsafe byte")
        let device = ["con", "prn", "aux", "nul"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] }
        check(!device.contains(String(decoding: name, as: UTF8.self)), "name \(path.fileName) is a device name")
        var encoded = name[...]
        var expectedHash: [UInt8]?
        if let tilde = name.firstIndex(of: UInt8(ascii: "~")) {
            check(name.count > tilde + 1 && tilde <= RecordPath.keptPrefixLength, "cut name \(path.fileName)")
            expectedHash = Array(name[(tilde + 1)...])
            encoded = name[..<tilde]
            check(expectedHash == Array(hash.utf8), "cut name \(path.fileName) of \(shown(bytes)) ends in another hash")
        } else {
            check(name.count <= RecordPath.maximumNameLength, "name \(path.fileName) is too long")
        }
        guard let decoded = decodeName(encoded) else {
            return check(false, "name \(path.fileName) of \(shown(bytes)) does not decode")
        }
        if expectedHash == nil {
            check(decoded == bytes, "name \(path.fileName) decodes to \(shown(decoded)), not \(shown(bytes))")
        } else {
            check(bytes.starts(with: decoded), "cut name \(path.fileName) decodes to \(shown(decoded)), not a prefix of \(shown(bytes))")
        }
    }

    /// The id bytes a record file name (without `.json`) encodes: `^x` is `X`, `%hh` the byte
    /// `hh`; `%` alone is the empty id.
    private static func decodeName(_ name: ArraySlice<UInt8>) -> [UInt8]? {
        if name.elementsEqual("%".utf8) { return [] }
        var result: [UInt8] = []
        var index = name.startIndex
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48...57: byte - 48
            case 97...102: byte - 87
            default: nil
            }
        }
        while index < name.endIndex {
            let byte = name[index]
            switch byte {
            case UInt8(ascii: "^"):
                guard index + 1 < name.endIndex, (97...122).contains(name[index + 1]) else { return nil }
                result.append(name[index + 1] - 32)
                index += 2
            case UInt8(ascii: "%"):
                guard index + 2 < name.endIndex, let high = hex(name[index + 1]), let low = hex(name[index + 2]) else { return nil }
                result.append(high << 4 | low)
                index += 3
            default:
                result.append(byte)
                index += 1
            }
        }
        return result
    }
}
