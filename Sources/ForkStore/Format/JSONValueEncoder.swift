import Foundation

/// Encodes an `Encodable` value straight to canonical ``JSONValue``, giving what `JSONEncoder`
/// with its default strategies writes once `CanonicalJSON` has re-written it (dates as seconds
/// since 2001, `Data` as base64, `URL` as a string, `Decimal` from its digits, a non-finite
/// float an error), with one difference: a collection that encodes in hash order (a `Set`, a
/// `Dictionary` with keys that are not strings or integers) lists its contents in canonical
/// order (see ``HashOrderedCollection``). Hash order changes from one process to the next, so
/// without this the same value would give other bytes elsewhere.
package struct JSONValueEncoder {
    package init() {}

    package func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        guard let json = try JSONValueEncoding.json(of: value, at: []) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        return json
    }
}

/// One value being encoded, at its coding path; also its own single-value container.
private struct JSONValueEncoding: Encoder, SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The JSON of `value` at `codingPath`; nil when it encoded nothing.
    static func json<Value: Encodable>(of value: Value, at codingPath: [any CodingKey]) throws -> JSONValue? {
        if let scalar = value as? any JSONScalar { return try scalar.json(at: codingPath) }
        let encoding = JSONValueEncoding(node: JSONNode(), codingPath: codingPath)
        try value.encode(to: encoding)
        let json = try encoding.node.resolved(depth: codingPath.count, codingPath: codingPath)
        if let collection = value as? any HashOrderedCollection, case .array(let elements)? = json {
            return .array(type(of: collection).canonicalOrder(of: elements))
        }
        return json
    }

    /// What a nested value that encoded nothing becomes, as in `JSONEncoder`.
    static let nothing = JSONValue.object([])

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONObjectEncoding<Key>(node: node.becomingObject(), codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONArrayEncoding(node: node.becomingArray(), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { node.value = .null }

    func encode<Value: Encodable>(_ value: Value) throws { try put(value) }
    // The protocols' own versions of these two throw "not supported", and win over the generic.
    func encode(_ value: Int128) throws { try put(value) }
    func encode(_ value: UInt128) throws { try put(value) }

    private func put<Value: Encodable>(_ value: Value) throws {
        node.value = try Self.json(of: value, at: codingPath) ?? Self.nothing
    }
}

/// An object's members, by key; a key written twice keeps the later value, as in `JSONEncoder`.
private struct JSONObjectEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) { node.members[key.stringValue] = .value(.null) }

    func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Int128, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: UInt128, forKey key: Key) throws { try put(value, key) }

    private func put<Value: Encodable>(_ value: Value, _ key: Key) throws {
        node.members[key.stringValue] = .value(try JSONValueEncoding.json(of: value, at: codingPath + [key]) ?? JSONValueEncoding.nothing)
    }

    func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type, forKey key: Key) -> KeyedEncodingContainer<Nested> {
        KeyedEncodingContainer(JSONObjectEncoding<Nested>(node: child(key.stringValue).becomingObject(), codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONArrayEncoding(node: child(key.stringValue).becomingArray(), codingPath: codingPath + [key])
    }

    func superEncoder() -> any Encoder {
        JSONValueEncoding(node: child(JSONKey.super.stringValue), codingPath: codingPath + [JSONKey.super])
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        JSONValueEncoding(node: child(key.stringValue), codingPath: codingPath + [key])
    }

    /// The node at `name`, made (or made from the value written there) on first use, so
    /// containers asked for twice write into one place.
    private func child(_ name: String) -> JSONNode {
        if case .node(let existing)? = node.members[name] { return existing }
        let made = JSONNode()
        if case .value(let value)? = node.members[name] { made.value = value }
        node.members[name] = .node(made)
        return made
    }
}

/// An array's elements, in the order they are encoded.
private struct JSONArrayEncoding: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    var count: Int { node.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [JSONKey.index(count)] }

    func encodeNil() { node.elements.append(.value(.null)) }

    func encode<Value: Encodable>(_ value: Value) throws { try put(value) }
    func encode(_ value: Int128) throws { try put(value) }
    func encode(_ value: UInt128) throws { try put(value) }

    private func put<Value: Encodable>(_ value: Value) throws {
        node.elements.append(.value(try JSONValueEncoding.json(of: value, at: nextPath) ?? JSONValueEncoding.nothing))
    }

    func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) -> KeyedEncodingContainer<Nested> {
        KeyedEncodingContainer(JSONObjectEncoding<Nested>(node: appendedNode().becomingObject(), codingPath: nextPath))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONArrayEncoding(node: appendedNode().becomingArray(), codingPath: nextPath)
    }

    func superEncoder() -> any Encoder {
        JSONValueEncoding(node: appendedNode(), codingPath: nextPath)
    }

    private func appendedNode() -> JSONNode {
        let made = JSONNode()
        node.elements.append(.node(made))
        return made
    }
}

/// A JSON value being built. A class: containers handed out earlier keep writing into it after
/// the call that made them returns.
private final class JSONNode {
    /// A member or element: finished, or still being built.
    enum Entry {
        case value(JSONValue)
        case node(JSONNode)
    }

    enum Shape { case single, object, array }

    private(set) var shape = Shape.single
    var value: JSONValue?
    var members: [String: Entry] = [:]
    var elements: [Entry] = []

    /// Makes the node an object, keeping the members of an object encoded there before.
    func becomingObject() -> JSONNode {
        guard shape != .object else { return self }
        if case .object(let earlier)? = value {
            for member in earlier { members[member.key] = .value(member.value) }
        }
        shape = .object
        return self
    }

    /// Makes the node an array, keeping the elements of an array encoded there before.
    func becomingArray() -> JSONNode {
        guard shape != .array else { return self }
        if case .array(let earlier)? = value { elements = earlier.map { .value($0) } }
        shape = .array
        return self
    }

    /// The finished value, or nil when nothing was encoded. `depth` is the node's nesting level
    /// (its coding path's length); an object or array deeper than readers read is an error.
    func resolved(depth: Int, codingPath: [any CodingKey]) throws -> JSONValue? {
        guard shape != .single else { return value }
        guard depth < JSONParser.maximumDepth else {
            throw EncodingError.invalidValue(
                shape == .object ? "object" : "array",
                .init(codingPath: codingPath, debugDescription: "Nesting deeper than \(JSONParser.maximumDepth) levels cannot be read back."))
        }
        func finished(_ entry: Entry) throws -> JSONValue {
            switch entry {
            case .value(let value): value
            case .node(let node): try node.resolved(depth: depth + 1, codingPath: codingPath) ?? JSONValueEncoding.nothing
            }
        }
        if shape == .array { return .array(try elements.map(finished)) }
        let sorted = try members.map { JSONValue.Member(key: $0.key, value: try finished($0.value)) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return .object(sorted)
    }
}

/// A value written as one JSON scalar, as `JSONEncoder` writes it.
private protocol JSONScalar {
    func json(at codingPath: [any CodingKey]) throws -> JSONValue
}

extension String: JSONScalar {
    fileprivate func json(at codingPath: [any CodingKey]) -> JSONValue { .string(self) }
}

extension Bool: JSONScalar {
    fileprivate func json(at codingPath: [any CodingKey]) -> JSONValue { .bool(self) }
}

/// Integers write their digits, which are canonical already.
extension JSONScalar where Self: FixedWidthInteger {
    fileprivate func json(at codingPath: [any CodingKey]) -> JSONValue { .number(description) }
}

extension Int: JSONScalar {}
extension Int8: JSONScalar {}
extension Int16: JSONScalar {}
extension Int32: JSONScalar {}
extension Int64: JSONScalar {}
extension Int128: JSONScalar {}
extension UInt: JSONScalar {}
extension UInt8: JSONScalar {}
extension UInt16: JSONScalar {}
extension UInt32: JSONScalar {}
extension UInt64: JSONScalar {}
extension UInt128: JSONScalar {}

/// A float writes the canonical form of its shortest round-trip digits, which is what
/// `JSONEncoder` writes once canonicalized; NaN and infinities cannot be written.
extension JSONScalar where Self: BinaryFloatingPoint & CustomStringConvertible {
    fileprivate func json(at codingPath: [any CodingKey]) throws -> JSONValue {
        guard isFinite, let literal = CanonicalJSON.canonicalNumber(description) else {
            throw EncodingError.invalidValue(self, .init(codingPath: codingPath, debugDescription: "Unable to encode \(Self.self).\(self) directly in JSON."))
        }
        return .number(literal)
    }
}

extension Double: JSONScalar {}
extension Float: JSONScalar {}

extension Data: JSONScalar {
    fileprivate func json(at codingPath: [any CodingKey]) -> JSONValue { .string(base64EncodedString()) }
}

extension URL: JSONScalar {
    fileprivate func json(at codingPath: [any CodingKey]) -> JSONValue { .string(absoluteString) }
}

extension Decimal: JSONScalar {
    /// Its digits, read as a JSON number (which also refuses NaN).
    fileprivate func json(at codingPath: [any CodingKey]) throws -> JSONValue {
        guard let number = try? CanonicalJSON.parse(Array(description.utf8)), case .number = number else {
            throw EncodingError.invalidValue(self, .init(codingPath: codingPath, debugDescription: "Unable to encode Decimal \(self) directly in JSON."))
        }
        return number
    }
}
