import ForkStore
import Foundation
import Testing

/// Stored JSON is decoded from the strict parser's value, not by Foundation's JSONDecoder: it
/// must decode every type exactly as JSONDecoder (default strategies) decodes the same text.
@Suite("Decoding from parsed JSON")
struct JSONValueDecoderTests {
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case square(side: Int, label: String?)
        case empty
    }

    class Base: Codable {
        var name = "base"
    }

    final class Derived: Base {
        var extra = 7
        enum CodingKeys: String, CodingKey { case extra }
        override init() { super.init() }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            extra = try container.decode(Int.self, forKey: .extra)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(extra, forKey: .extra)
            try super.encode(to: container.superEncoder())
        }
    }

    struct Everything: Codable, Equatable {
        var date = Date(timeIntervalSinceReferenceDate: 785_592_800.25)
        var data = Data([0, 1, 2, 250, 255])
        var url = URL(string: "https://example.com/a?b=c")
        var decimal = Decimal(string: "12345678901234567890.125")
        var byNumber: [Int: String] = [3: "three", -1: "minus one"]
        var byName: [String: [Double]] = ["é": [0.1, 1e-7, 2.5e20], "e\u{301}x": []]
        var shapes: [Shape] = [.circle(radius: 1.5), .square(side: 2, label: nil), .square(side: 3, label: "x"), .empty]
        var optional: Int? = nil
        var set: Set<String> = ["a", "b"]
        var float: Float = 0.1
        var huge = UInt64.max
        var small = Int8.min
        var nested: [[Bool?]] = [[true, nil], []]
        var text = "tab\t \"quote\" \u{1F600}"
    }

    static func roundTrip<Value: Codable>(_ value: Value) throws -> (ours: Value, foundation: Value) {
        let canonical = try CanonicalJSON.canonicalize(Array(JSONEncoder().encode(value)))
        let ours = try JSONValueDecoder().decode(Value.self, from: CanonicalJSON.parse(canonical))
        let foundation = try JSONDecoder().decode(Value.self, from: Data(canonical))
        return (ours, foundation)
    }

    @Test func everyKindOfValueDecodesAsJSONDecoderDecodesIt() throws {
        let (ours, foundation) = try Self.roundTrip(Everything())
        #expect(ours == foundation)
        #expect(ours == Everything())
        let derived = try Self.roundTrip(Derived())
        #expect(derived.ours.extra == 7 && derived.ours.name == "base" && derived.foundation.name == "base")
    }

    struct Small: Codable { var value: Int8 }
    struct Whole: Codable { var value: Int }
    struct Flag: Codable { var value: Bool }
    struct Bytes: Codable { var value: Data }
    struct Single: Codable { var value: Float }
    struct Required: Codable { var value: String }

    /// What JSONDecoder refuses, this decoder refuses too.
    @Test(arguments: [
        (#"{"value": 300}"#, "Small"), (#"{"value": 1.5}"#, "Whole"), (#"{"value": 1}"#, "Flag"),
        (#"{"value": "not base64!"}"#, "Bytes"), (#"{"value": 1e39}"#, "Single"), (#"{}"#, "Required"),
        (#"{"value": null}"#, "Required"), (#"[]"#, "Required"),
        // A non-zero number that underflows to zero (found by the json-value-decoder fuzzer).
        (#"{"value": 1.5e-63}"#, "Single"), (#"{"value": 7e-46}"#, "Single"), (#"{"value": -1e-46}"#, "Single"),
    ])
    func whatJSONDecoderRefusesIsRefused(_ text: String, _ type: String) throws {
        let json = try CanonicalJSON.parse(Array(text.utf8))
        func check<Value: Decodable>(_ type: Value.Type) {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(type, from: Data(text.utf8)) }
            #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(type, from: json) }
        }
        switch type {
        case "Small": check(Small.self)
        case "Whole": check(Whole.self)
        case "Flag": check(Flag.self)
        case "Bytes": check(Bytes.self)
        case "Single": check(Single.self)
        default: check(Required.self)
        }
    }

    /// An integer written with a fraction or an exponent is read as JSONDecoder reads it:
    /// through a double, which must then be whole (found by the json-value-decoder fuzzer:
    /// `4294967295999.99999999995` rounds to a whole double, so JSONDecoder takes it as an Int).
    @Test(arguments: ["4294967295999999.99999995e-3", "4294967296000.0000000001", "1.5", "2.5e0", "1e19", "-9.3e15"])
    func anIntegerWithAFractionIsReadAsJSONDecoderReadsIt(_ literal: String) throws {
        let text = #"{"value": \#(literal)}"#
        let json = try CanonicalJSON.parse(Array(text.utf8))
        let ours = Result { try JSONValueDecoder().decode(Whole.self, from: json).value }
        let theirs = Result { try JSONDecoder().decode(Whole.self, from: Data(CanonicalJSON.serialize(json))).value }
        switch (ours, theirs) {
        case (.success(let mine), .success(let foundation)): #expect(mine == foundation)
        case (.failure, .failure): break
        default: Issue.record("\(literal): \(ours) here, \(theirs) from JSONDecoder")
        }
    }

    /// From 2^53 up, an integer written with a fraction or an exponent is refused: a double no
    /// longer holds every whole number there, and JSONDecoder's reading (through Decimal,
    /// dropping the fraction) is not guessed at (found by the json-value-decoder fuzzer).
    @Test(arguments: ["9007199254740992.5", "6942924795999995999998.99e-3", "-9007199254740993.5"])
    func anIntegerBeyondWholeDoublesWithAFractionIsRefused(_ literal: String) throws {
        let json = try CanonicalJSON.parse(Array(#"{"value": \#(literal)}"#.utf8))
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Whole.self, from: json) }
    }

    @Test func errorsNameTheirPath() throws {
        let json = try CanonicalJSON.parse(Array(#"{"shapes": [{"circle": {"radius": "wide"}}]}"#.utf8))
        struct Holder: Codable { var shapes: [Shape] }
        do {
            _ = try JSONValueDecoder().decode(Holder.self, from: json)
            Issue.record("decoded a string as a Double")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["shapes", "Index 0", "circle", "radius"])
        }
    }
}
