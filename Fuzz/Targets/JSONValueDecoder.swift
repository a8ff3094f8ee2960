@testable import ForkStore
import Foundation

/// Everything JSON decodes to, tried in the order a model might: each decoder must make the
/// same choice at every level.
private indirect enum Probe: Decodable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case uint8(UInt8)
    case double(Double)
    case string(String)
    case array([Probe])
    case object([String: Probe])
    case other

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null; return }
        if let flag = try? single.decode(Bool.self) { self = .bool(flag); return }
        if let number = try? single.decode(UInt8.self) { self = .uint8(number); return }
        if let number = try? single.decode(Int.self) { self = .int(number); return }
        if let number = try? single.decode(Double.self) { self = .double(number); return }
        if let text = try? single.decode(String.self) { self = .string(text); return }
        if let elements = try? single.decode([Probe].self) { self = .array(elements); return }
        if let members = try? single.decode([String: Probe].self) { self = .object(members); return }
        self = .other
    }
}

/// A model with the types the default strategies treat specially.
private struct Model: Decodable, Equatable {
    var title: String?
    var count: Int64?
    var small: Int8?
    var unsigned: UInt32?
    var ratio: Float?
    var date: Date?
    var data: Data?
    var url: URL?
    var price: Decimal?
    var tags: [String]?
    var nested: [String: [Int]]?
}

extension FuzzTarget {
    /// `JSONValueDecoder` decodes what the strict parser accepts as `JSONDecoder` decodes the
    /// same JSON: the same value, or an error from both. JSONDecoder reads the canonical form
    /// (what ForkStore stores), so that this compares decoding, not parsing (the `json` target
    /// does), and steps round JSONDecoder's own refusal of `0e9`, which JSONSerialization takes.
    static let jsonValueDecoder = FuzzTarget(name: "json-value-decoder") { bytes in
        guard let value = try? CanonicalJSON.parse(bytes) else { return }
        // From 2^53 up, JSONDecoder reads an integer written with a fraction or an exponent
        // through Decimal, dropping the fraction (and traps on some); JSONValueDecoder refuses
        // it. JSONValueDecoderTests holds that difference; here such inputs are not compared.
        guard !holdsALiteralBeyondWholeDoubles(value) else { return }
        let canonical = Data(CanonicalJSON.serialize(value))
        func compare<T: Decodable & Equatable>(_ type: T.Type) {
            let ours = Result { try JSONValueDecoder().decode(T.self, from: value) }
            let foundation = Result { try JSONDecoder().decode(T.self, from: canonical) }
            switch (ours, foundation) {
            case (.success(let mine), .success(let theirs)):
                check(mine == theirs, "\(T.self) from \(shown(bytes)): \(mine) here, \(theirs) from JSONDecoder")
            case (.failure, .failure): break
            case (.success(let mine), .failure(let error)):
                check(false, "\(T.self) from \(shown(bytes)): \(mine) here, JSONDecoder fails: \(error)")
            case (.failure(let error), .success(let theirs)):
                check(false, "\(T.self) from \(shown(bytes)): fails here (\(error)), \(theirs) from JSONDecoder")
            }
        }
        compare(Probe.self)
        compare(Model.self)
    }
}

/// Whether a number written with a fraction or an exponent is 2^53 or more in magnitude.
private func holdsALiteralBeyondWholeDoubles(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let literal):
        JSONValueDecoder.hasFractionOrExponent(literal) && (Double(literal)?.magnitude ?? .infinity) >= 0x1p53
    case .array(let elements): elements.contains(where: holdsALiteralBeyondWholeDoubles)
    case .object(let members): members.contains { holdsALiteralBeyondWholeDoubles($0.value) }
    default: false
    }
}
