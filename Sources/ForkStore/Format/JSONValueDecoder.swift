import Foundation

/// Decodes a `Decodable` type straight from a parsed ``JSONValue``, as `JSONDecoder` with its
/// default strategies decodes the same JSON (dates as seconds since 2001, `Data` as base64,
/// `URL` as a string, `Decimal` from the number's digits), so every stored blob is parsed once,
/// by the strict parser, not a second time by Foundation's.
package struct JSONValueDecoder {
    package init() {}

    package func decode<Value: Decodable>(_ type: Value.Type, from json: JSONValue) throws -> Value {
        try JSONValueDecoding(value: json, codingPath: []).decode(type)
    }

    /// Decodes `type` from `json` as the member `key` of an object at the top level, as the
    /// object's keyed container would: errors name the path below `key`.
    package func decode<Value: Decodable>(_ type: Value.Type, from json: JSONValue, at key: any CodingKey) throws -> Value {
        try JSONValueDecoding(value: json, in: [], at: key).decode(type)
    }
}

/// One value being decoded, at its coding path; also its own single-value container.
///
/// The path is kept as the container's path and the value's own key, joined only when asked
/// for (errors, nested containers): a record's members are decoded without an array made for
/// each.
private struct JSONValueDecoding: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?
    var codingPath: [any CodingKey] { key.map { parentPath + [$0] } ?? parentPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, codingPath: [any CodingKey]) {
        (self.value, parentPath, key) = (value, codingPath, nil)
    }

    init(value: JSONValue, in parentPath: [any CodingKey], at key: any CodingKey) {
        (self.value, self.parentPath, self.key) = (value, parentPath, key)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(JSONObjectDecoding<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self) }
        return JSONArrayDecoding(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kind) instead."))
    }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(type) }
        return text
    }

    /// A number from its canonical literal; out of range or not whole for an integer type is
    /// an error, as in `JSONDecoder`.
    private func number<Number: LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        guard case .number(let literal) = value else { throw mismatch(type) }
        guard let number = Number(literal) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Number \(literal) does not fit in \(type)."))
        }
        return number
    }

    /// A floating-point number; like `JSONDecoder`, one that overflows to infinity or a
    /// non-zero literal that underflows to zero (`1e-400`, `1e-46` as a `Float`) is an error.
    private func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        let number = try self.number(type)
        guard number.isFinite, number != 0 || !Self.hasNonZeroDigit(value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Number does not fit in \(type)."))
        }
        return number
    }

    private static func hasNonZeroDigit(_ value: JSONValue) -> Bool {
        guard case .number(let literal) = value else { return false }
        return literal.prefix { $0 != "e" && $0 != "E" }.contains { ("1"..."9").contains($0) }
    }

    /// An integer; like `JSONDecoder`, a literal with a fraction or an exponent is read as a
    /// double, which must then be whole and in range (`4294967295999.99999999995` rounds to
    /// the double 4294967296000, so an `Int` takes it; `1.5` is an error). From 2^53 up, where
    /// a double no longer holds every whole number, such a literal is an error here, where
    /// JSONDecoder reads it again as a `Decimal` and drops its fraction: no value is guessed.
    private func integer<Number: FixedWidthInteger & LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        if case .number(let literal) = value, JSONValueDecoder.hasFractionOrExponent(literal) {
            guard let double = Double(literal), double.magnitude < 0x1p53, let number = Number(exactly: double) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Number \(literal) does not fit in \(type)."))
            }
            return number
        }
        return try number(type)
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        // The types JSONDecoder's default strategies treat specially.
        if type == Data.self {
            guard let data = Data(base64Encoded: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Encountered Data is not valid Base64."))
            }
            return try cast(data)
        }
        if type == URL.self {
            guard let url = URL(string: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Invalid URL string."))
            }
            return try cast(url)
        }
        if type == Decimal.self {
            guard case .number(let literal) = value, let decimal = Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(type)
            }
            return try cast(decimal)
        }
        return try Value(from: self)
    }

    private func cast<Value>(_ special: Any) throws -> Value {
        guard let value = special as? Value else { throw mismatch(Value.self) }
        return value
    }
}

extension JSONValue {
    /// What a value is, for error messages.
    fileprivate var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}

/// An object's members, looked up by key (Swift string equality, as `JSONDecoder` does).
private struct JSONObjectDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONValue.Member]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    /// Keys compare as Swift strings, as in `JSONDecoder`; of two canonically equivalent keys
    /// (`"é"`, `"e\u{301}"`) the later one wins there, and here.
    private func member(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        return members.last { $0.key == name }?.value
    }

    private func decoding(_ key: Key) throws -> JSONValueDecoding {
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return JSONValueDecoding(value: value, in: codingPath, at: key)
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { try decoding(key).decodeNil() }
    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value { try decoding(key).decode(type) }
    // The common kinds straight to their decoding, not through `init(from:)` and a
    // single-value container (the same checks and errors, without the detour).
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoding(key).decode(type) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoding(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoding(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoding(key).decode(type) }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let value = member(key), value != .null else { return nil }
        return try JSONValueDecoding(value: value, in: codingPath, at: key).decode(type)
    }

    func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type, forKey key: Key) throws -> KeyedDecodingContainer<Nested> {
        try decoding(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoding(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoding(value: members.first { $0.key == "super" }?.value ?? .null, codingPath: codingPath + [JSONKey.super])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoding(value: member(key) ?? .null, in: codingPath, at: key)
    }
}

/// An array's elements, in order.
private struct JSONArrayDecoding: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> JSONValueDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [JSONKey.index(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return JSONValueDecoding(value: elements[currentIndex], in: codingPath, at: JSONKey.index(currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: codingPath + [JSONKey.index(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        guard elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value { try next(type).decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decode(type) }

    mutating func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) throws -> KeyedDecodingContainer<Nested> {
        try next(KeyedDecodingContainer<Nested>.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next((any Decoder).self) }
}

/// Coding keys the decoder and the encoder make themselves: array positions and `super`.
enum JSONKey: CodingKey {
    case index(Int)
    case `super`

    var stringValue: String {
        switch self {
        case .index(let index): "Index \(index)"
        case .super: "super"
        }
    }

    var intValue: Int? {
        if case .index(let index) = self { return index }
        return nil
    }

    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self = .index(intValue) }
}

extension JSONValueDecoder {
    /// Whether a number literal is written with a fraction or an exponent.
    package static func hasFractionOrExponent(_ literal: String) -> Bool {
        literal.contains { $0 == "." || $0 == "e" || $0 == "E" }
    }
}
