/// ForkStore's one canonical JSON form, so the same value always gives the same blob.
///
/// - UTF-8, no byte-order mark, ending in one newline.
/// - Object members sorted by the UTF-8 bytes of their keys; duplicate keys are refused.
/// - Two spaces of indentation per level, one member or element per line, `"key": value`;
///   empty objects and arrays are written `{}` and `[]`.
/// - Strings escape only `"`, `\` and control characters below U+0020 (`\b \f \n \r \t`,
///   otherwise `\u00XX` in lowercase hex); everything else is written as UTF-8, unnormalized.
/// - Integers (no fraction or exponent in the input) keep their digits; `-0` is `0`.
///   Other numbers are parsed as IEEE doubles: integral values of magnitude below 2^53 are
///   written as integers, anything else in the shortest form that reads back to the same
///   double (Swift's `description`, e.g. `0.1`, `1e-05`, `1e+100`).
///
/// The full specification is in `Schema/FORMAT.md`.
public enum CanonicalJSON {
    /// Parses JSON text. Throws ``CanonicalJSONError`` for anything that is not valid JSON.
    public static func parse(_ bytes: [UInt8]) throws(CanonicalJSONError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// Writes a value in canonical form.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, indent: 0, into: &output)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    /// Re-writes any JSON text in canonical form.
    public static func canonicalize(_ bytes: [UInt8]) throws(CanonicalJSONError) -> [UInt8] {
        serialize(try parse(bytes))
    }

    private static func write(_ value: JSONValue, indent: Int, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let literal): output.append(contentsOf: literal.utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            guard !elements.isEmpty else { return output.append(contentsOf: "[]".utf8) }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1, into: &output)
                write(element, indent: indent + 1, into: &output)
            }
            newline(indent, into: &output)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return output.append(contentsOf: "{}".utf8) }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1, into: &output)
                writeString(member.key, into: &output)
                output.append(contentsOf: ": ".utf8)
                write(member.value, indent: indent + 1, into: &output)
            }
            newline(indent, into: &output)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ indent: Int, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The canonical literal for a JSON number literal, or nil if it is not finite.
    static func canonicalNumber(_ literal: String) -> String? {
        let isInteger = !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        if isInteger {
            return literal == "-0" ? "0" : literal
        }
        guard let double = Double(literal), double.isFinite else { return nil }
        if double == double.rounded(), abs(double) < 9_007_199_254_740_992 {
            return String(Int64(double))
        }
        return double.description
    }
}

/// Why a blob is not valid JSON, with the byte offset where reading stopped.
public struct CanonicalJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was wrong there.
    public var reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}
