/// A strict RFC 8259 parser producing ``JSONValue``; the depth is bounded so hostile input
/// cannot exhaust the stack.
struct JSONParser {
    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    static let maximumDepth = 512

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(CanonicalJSONError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw failure("unexpected content after the JSON value") }
        return value
    }

    private func failure(_ reason: String) -> CanonicalJSONError {
        CanonicalJSONError(offset: position, reason: reason)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(CanonicalJSONError) -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes[position...].starts(with: expected) else { throw failure("invalid literal") }
        position += expected.count
        return value
    }

    private mutating func parseValue() throws(CanonicalJSONError) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func enter() throws(CanonicalJSONError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseArray() throws(CanonicalJSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw failure("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseObject() throws(CanonicalJSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        let start = position
        position += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        members.reserveCapacity(8)
        // Whether every key so far was written without escapes, each after the one before in
        // byte order: then the members are sorted and distinct as they are (canonical JSON
        // always is), known from the bytes as they are read, with no second pass comparing
        // the keys as Strings.
        var sorted = true
        var previousKey: Range<Int>?
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key in object") }
            let keyStart = position + 1
            let key = try parseString()
            if sorted {
                let keyBytes = keyStart..<position - 1
                sorted = bytes[keyBytes].count == key.utf8.count
                    && previousKey.map { bytes[$0].lexicographicallyPrecedes(bytes[keyBytes]) } ?? true
                previousKey = keyBytes
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after object key") }
            position += 1
            skipWhitespace()
            members.append(JSONValue.Member(key: key, value: try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                if sorted { return .object(members) }
                guard let object = JSONValue.object(unsorted: members) else {
                    throw CanonicalJSONError(offset: start, reason: "duplicate key in object")
                }
                return object
            default: throw failure("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseNumber() throws(CanonicalJSONError) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, (0x30...0x39).contains(first) else { throw failure("invalid number") }
        let wholeStart = position
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        let wholeDigits = position - wholeStart
        var hasFraction = false, hasExponent = false
        if current == UInt8(ascii: ".") {
            position += 1
            guard try skipRequiredDigits() else { throw failure("invalid number: digits expected after '.'") }
            hasFraction = true
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try skipRequiredDigits() else { throw failure("invalid number: digits expected in exponent") }
            hasExponent = true
        }
        let literal = String(decoding: bytes[start..<position], as: UTF8.self)
        // Most numbers are written in their one form already, as canonicalNumber's first
        // checks find (an integer; a decimal like a date's seconds), seen here from the bytes.
        if !hasExponent, let canonical = CanonicalJSON.asWritten(
            literal, wholeDigits: wholeDigits, startsWithZero: first == UInt8(ascii: "0"), lastDigit: bytes[position - 1],
            hasFraction: hasFraction)
        {
            return .number(canonical)
        }
        guard let canonical = CanonicalJSON.canonicalNumber(literal) else {
            throw CanonicalJSONError(offset: start, reason: "number out of range")
        }
        return .number(canonical)
    }

    private mutating func skipDigits() {
        while let byte = current, (0x30...0x39).contains(byte) { position += 1 }
    }

    private mutating func skipRequiredDigits() throws(CanonicalJSONError) -> Bool {
        let start = position
        skipDigits()
        return position > start
    }

    private mutating func parseString() throws(CanonicalJSONError) -> String {
        position += 1
        // Most strings hold no escape: validated straight from the input, no copy.
        let start = position
        var combined: UInt8 = 0  // every byte or-ed: below 0x80 when the string is ASCII
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            combined |= byte
            position += 1
        }
        if current == UInt8(ascii: "\"") {
            // ASCII is valid UTF-8 as it is: made without the generic validation, which cost
            // a tenth of a listing's decoding in type metadata lookups.
            let text: String? = combined < 0x80
                ? bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<position]), as: UTF8.self) }
                : String(validating: bytes[start..<position], as: UTF8.self)
            guard let text else { throw failure("string is not valid UTF-8") }
            position += 1
            return text
        }
        var buffer = Array(bytes[start..<position])
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw failure("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw failure("unescaped control character in string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(CanonicalJSONError) {
        guard let byte = current else { throw failure("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard bytes[position...].starts(with: Array(#"\u"#.utf8)) else {
                    throw failure("unpaired surrogate in \\u escape")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("invalid surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("unpaired surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
            buffer.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func parseHex4() throws(CanonicalJSONError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            case 0x41...0x46: digit = byte - 0x41 + 10
            default: throw failure("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
