/// ForkStore's one canonical JSON form, so the same value always gives the same blob.
///
/// - UTF-8, no byte-order mark, ending in one newline.
/// - Object members sorted by the UTF-8 bytes of their keys; duplicate keys are refused.
/// - Two spaces of indentation per level, one member or element per line, `"key": value`;
///   empty objects and arrays are written `{}` and `[]`.
/// - Strings escape only `"`, `\` and control characters below U+0020 (`\b \f \n \r \t`,
///   otherwise `\u00XX` in lowercase hex); everything else is written as UTF-8, unnormalized.
/// - A number is the exact decimal it writes: whole numbers as their digits (`1.0` and `1e3`
///   are `1` and `1000`, `-0` is `0`), others in ECMAScript's layout of their exact digits
///   (`0.1`, `0.00001`, `1.5e-7`), so every form of one value gives the same bytes.
///
/// The full specification is in `Schema/FORMAT.md`. Apps reach it through
/// ``JSONValue/init(parsing:)`` and ``JSONValue/canonicalBytes``.
package enum CanonicalJSON {
    /// Parses JSON text. Throws ``CanonicalJSONError`` for anything that is not valid JSON.
    package static func parse(_ bytes: [UInt8]) throws(CanonicalJSONError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// Writes a value in canonical form.
    package static func serialize(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, indent: 0, into: &output)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    /// Re-writes any JSON text in canonical form.
    package static func canonicalize(_ bytes: [UInt8]) throws(CanonicalJSONError) -> [UInt8] {
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

    /// The canonical literal of a JSON number literal with no exponent that is in its one form
    /// already, as most numbers are (but `-0`, whose form is `0`); nil for any other. An
    /// integer is, up to 309 digits (JSON has no leading zeros); so is a decimal like
    /// 817370715.8577762 (a date): a whole part that is not 0 and at most 21 digits, a fraction
    /// not ending in 0. The caller says what the literal holds.
    static func asWritten(_ literal: String, wholeDigits: Int, startsWithZero: Bool, lastDigit: UInt8, hasFraction: Bool) -> String? {
        if hasFraction {
            guard !startsWithZero, (1...21).contains(wholeDigits), (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(lastDigit) else { return nil }
            return literal
        }
        guard (1...309).contains(wholeDigits) else { return nil }
        return literal == "-0" ? "0" : literal
    }

    /// The canonical literal of a JSON number literal (Schema/FORMAT.md 4): a number is the
    /// exact decimal it writes, never rounded through a double. A whole number is written as
    /// its digits; any other value in ECMAScript's `Number::toString` layout (RFC 8785) of its
    /// exact digits: `0.001`, `1.5`, `1e-7`. Nil when its leading digit's power of ten is
    /// outside -324...308 (beyond any IEEE double).
    static func canonicalNumber(_ literal: String) -> String? {
        var utf8 = Substring(literal).utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        if let last = utf8.last, !utf8.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
            let point = utf8.firstIndex(of: UInt8(ascii: "."))
            if let canonical = asWritten(
                literal, wholeDigits: utf8.distance(from: utf8.startIndex, to: point ?? utf8.endIndex),
                startsWithZero: utf8.first == UInt8(ascii: "0"), lastDigit: last, hasFraction: point != nil)
            {
                return canonical
            }
        }
        let exponentStart = utf8.firstIndex { $0 | 0x20 == UInt8(ascii: "e") }
        let mantissa = utf8[..<(exponentStart ?? utf8.endIndex)]
        let point = mantissa.firstIndex(of: UInt8(ascii: "."))
        let fraction = point.map { mantissa[mantissa.index(after: $0)...] } ?? mantissa[mantissa.endIndex...]
        var digits = Array(mantissa[..<(point ?? mantissa.endIndex)]) + Array(fraction)
        var exponent = -fraction.count
        if let exponentStart {
            var written = utf8[utf8.index(after: exponentStart)...]
            let negativeExponent = written.first == UInt8(ascii: "-")
            if written.first == UInt8(ascii: "-") || written.first == UInt8(ascii: "+") { written = written.dropFirst() }
            written = written.drop { $0 == UInt8(ascii: "0") }
            guard written.count <= 9 else { return digits.allSatisfy { $0 == UInt8(ascii: "0") } ? "0" : nil }
            let magnitude = written.reduce(0) { $0 * 10 + Int($1 - 48) }
            exponent += negativeExponent ? -magnitude : magnitude
        }
        guard let firstSignificant = digits.firstIndex(where: { $0 != UInt8(ascii: "0") }) else { return "0" }
        digits.removeFirst(firstSignificant)
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        // The value is 0.d1…dk × 10^n.
        let k = digits.count, n = k + exponent
        guard (-323...309).contains(n) else { return nil }
        let text = String(decoding: digits, as: UTF8.self)
        var result = negative ? "-" : ""
        if exponent >= 0 {
            result += text + String(repeating: "0", count: exponent)
        } else if 0 < n, n <= 21 {
            result += text.prefix(n) + "." + text.dropFirst(n)
        } else if -6 < n, n <= 0 {
            result += "0." + String(repeating: "0", count: -n) + text
        } else {
            result += text.prefix(1) + (k > 1 ? "." + text.dropFirst() : "") + (n - 1 >= 0 ? "e+" : "e-") + String(abs(n - 1))
        }
        return result
    }
}

/// Why bytes are not valid JSON (thrown by ``JSONValue/init(parsing:)``), with the byte offset
/// where reading stopped.
public struct CanonicalJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset where reading stopped.
    public var offset: Int
    /// What was wrong there.
    public var reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}
