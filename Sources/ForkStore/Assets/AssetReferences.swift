#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The asset references in a JSON document: every object holding a `$asset` member, at any
/// depth. What collection, sync and the checks on incoming data read, without knowing the
/// app's types.
package struct AssetReferences: Sendable {
    /// The well-formed references, in document order.
    package var assets: [Asset] = []
    /// Where each of ``assets`` is in the document, as a JSON Pointer (same order).
    package var pointers: [String] = []
    /// The malformed ones: where (a JSON Pointer) and why.
    package var problems: [(pointer: String, reason: String)] = []
    /// The ids the malformed references still name (an id in upper case or without `sha256:`,
    /// a size over the limit): `Asset`'s decoding reads some of them, so collection keeps
    /// their bytes too.
    package var idsOfMalformed: [AssetID] = []

    /// Finds the references in `value`, holding sizes to `maximumSize`.
    package init(in value: JSONValue, maximumSize: Int = .max) {
        visit(value, pointer: "", maximumSize: maximumSize)
    }

    /// Finds the references in a blob's bytes; a blob that is not JSON, or names no asset
    /// (checked first, without parsing), has none.
    package init(inJSON bytes: [UInt8], maximumSize: Int = .max) {
        guard Self.mayHoldReferences(bytes), let value = try? JSONValue(parsing: bytes) else {
            self.init(in: .null)
            return
        }
        self.init(in: value, maximumSize: maximumSize)
    }

    /// Whether the bytes contain `"$asset"`, or a `\u` escape that could spell it another way
    /// (canonical JSON never does; a blob another tool wrote may): a blob with neither holds
    /// no reference. A search of the bytes, without parsing.
    package static func mayHoldReferences(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in Self.needles.contains { contains($0, in: buffer) } }
    }

    /// Whether `needle` occurs in `buffer`: `memchr` finds each candidate first byte.
    private static func contains(_ needle: [UInt8], in buffer: UnsafeRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress, let first = needle.first, buffer.count >= needle.count else { return false }
        var offset = 0
        while offset <= buffer.count - needle.count,
            let found = memchr(base + offset, Int32(first), buffer.count - needle.count + 1 - offset)
        {
            let start = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + start, needle, needle.count) == 0 { return true }
            offset = start + 1
        }
        return false
    }

    private static let needles = [Array("\"$asset\"".utf8), Array("\\u".utf8)]

    private mutating func visit(_ value: JSONValue, pointer: String, maximumSize: Int) {
        switch value {
        case .object(let members):
            if members.contains(where: { $0.key == Asset.referenceKey }) {
                switch Self.asset(from: members, maximumSize: maximumSize) {
                case .success(let asset):
                    assets.append(asset)
                    pointers.append(pointer)
                case .failure(let problem):
                    problems.append((pointer, problem.reason))
                    if case .string(let text)? = members.first(where: { $0.key == Asset.referenceKey })?.value, let id = AssetID(text) {
                        idsOfMalformed.append(id)
                    }
                }
                return
            }
            for member in members {
                visit(member.value, pointer: pointer + "/" + JSONPointer.escape(member.key), maximumSize: maximumSize)
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                visit(element, pointer: pointer + "/\(index)", maximumSize: maximumSize)
            }
        default:
            break
        }
    }

    struct Problem: Error {
        let reason: String
    }

    /// The asset an object with a `$asset` member describes, checked as FORMAT.md says.
    static func asset(from members: [JSONValue.Member], maximumSize: Int) -> Result<Asset, Problem> {
        var id: AssetID?
        var size: Int?
        var mediaType = Asset.unknownMediaType
        var name: String?
        for member in members {
            switch (member.key, member.value) {
            case (Asset.referenceKey, .string(let text)):
                guard let parsed = AssetID(text), text == parsed.oid else {
                    return .failure(Problem(reason: "an asset id is sha256: and 64 lowercase hexadecimal digits"))
                }
                id = parsed
            case ("size", .number(let text)):
                guard let value = Int(text), value >= 0 else {
                    return .failure(Problem(reason: "an asset's size is a whole number of bytes"))
                }
                guard value <= maximumSize else {
                    return .failure(Problem(reason: "the asset is \(value) bytes, over the limit of \(maximumSize)"))
                }
                size = value
            case ("mediaType", .string(let text)):
                mediaType = text
            case ("name", .string(let text)):
                // Byte by byte: String's contains compares characters, and "/" followed by a
                // combining mark is one character that is not "/".
                guard !text.utf8.contains(0x2F), !text.utf8.contains(0) else {
                    return .failure(Problem(reason: "an asset's name is a file name without folders"))
                }
                name = text
            case (Asset.referenceKey, _), ("size", _), ("mediaType", _), ("name", _):
                return .failure(Problem(reason: "the member '\(member.key)' of an asset reference has the wrong type"))
            default:
                continue  // members a later version adds are kept by the record and ignored here
            }
        }
        guard let id else { return .failure(Problem(reason: "an asset reference names no id")) }
        guard let size else { return .failure(Problem(reason: "an asset reference has no size")) }
        return .success(Asset(id: id, size: size, mediaType: mediaType, fileName: name))
    }
}
