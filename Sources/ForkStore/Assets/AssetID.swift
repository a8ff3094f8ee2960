/// The content id of an asset: the SHA-256 of its bytes, the same id Git LFS gives the same
/// bytes (its pointer's `oid sha256:…`).
public struct AssetID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The hash as 64 lowercase hexadecimal digits.
    public let hex: String

    /// An id from 64 hexadecimal digits, with or without Git LFS's `sha256:` prefix; nil for
    /// anything else. Upper-case digits are read and kept lower-case.
    public init?(_ text: String) {
        let digits = text.hasPrefix(Self.prefix) ? text.dropFirst(Self.prefix.count) : Substring(text)
        guard digits.utf8.count == 64,
            digits.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) })
        else { return nil }
        hex = digits.lowercased()
    }

    package init(digest: some Sequence<UInt8>) {
        hex = digest.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
    }

    /// The id as a Git LFS pointer writes it: `sha256:` and the hex digits.
    public var oid: String { Self.prefix + hex }

    public var description: String { oid }

    public static func < (lhs: AssetID, rhs: AssetID) -> Bool { lhs.hex < rhs.hex }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = AssetID(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an asset id (sha256: and 64 hexadecimal digits)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(oid)
    }

    static let prefix = "sha256:"
}
