import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// Holds sets of several kinds beside an array, which must keep its order.
private struct Collections: Resource {
    static let modelVersion = 1
    var words: Set<String>
    var numbers: Set<Int>
    var groups: Set<Set<String>>
    var points: Set<Point>
    var list: [String]
    /// Keys that are neither strings nor integers: Swift writes `[key, value, key, value, …]`.
    var byPoint: [Point: String]
    var byNumber: [Int: String]

    struct Point: Codable, Hashable {
        var x: Int
        var y: Int
    }

    static let sample = Collections(
        words: Set((0..<30).map { "word-\($0)" }),
        numbers: Set(0..<30),
        groups: Set((0..<10).map { group in Set((0..<5).map { "g\(group)-\($0)" }) }),
        points: Set((0..<10).map { Point(x: $0 % 3, y: $0) }),
        list: (0..<30).map { "item-\($0)" }.reversed(),
        byPoint: Dictionary(uniqueKeysWithValues: (0..<20).map { (Point(x: $0 % 4, y: $0), "p\($0)") }),
        byNumber: Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, "n\($0)") }))
}

/// Every kind of value `JSONEncoder` treats in its own way, with no set.
private struct Everything: Encodable {
    enum Shape: Encodable {
        case circle(radius: Double)
        case labelled(String, Int)
        case none
    }

    var text = "é e\u{301} \"quoted\" \\ / \u{1} \n tab\t"
    var flags = [true, false]
    var integers: [Int64] = [0, -1, .max, .min]
    var unsigned: [UInt64] = [0, .max]
    var small: [Int8] = [-128, 127]
    var wide: Int128 = Int128(Int64.max) * 1000
    var doubles = [0.1, 1e-7, 1e300, -0.0, 1.5, 123456789.125, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
    var floats: [Float] = [0.1, 1e-7, 3.4e38, 16_777_216]
    var decimal = Decimal(string: "12345678901234567890.123456789")
    var date = Date(timeIntervalSinceReferenceDate: 785592800.5)
    var data = Data([0, 1, 2, 250, 255])
    var url = URL(string: "https://example.com/a%20b?c=d")
    var missing: String? = nil
    var present: Int? = 7
    var shapes: [Shape] = [.circle(radius: 2.5), .labelled("x", 3), .none]
    var byName = ["b": 2, "a": 1, "é": 3, "B": 4]
    var byNumber = [10: "ten", 2: "two"]
    var nested = [[[1, 2], []], [[3]]]
    var empty = Empty()
    var silent = Silent()
    var subclass = Sub()

    struct Empty: Encodable {}

    /// Encodes nothing at all.
    struct Silent: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }
}

/// A subclass encoding through `superEncoder()`.
private class Base: Encodable {
    var base = "base"
}

private final class Sub: Base {
    var own = 1

    private enum CodingKeys: String, CodingKey { case own }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(own, forKey: .own)
        try super.encode(to: container.superEncoder())
    }
}

/// Nested `depth` arrays deep around a number.
private indirect enum Nesting: Encodable {
    case leaf
    case array(Nesting)

    static func deep(_ depth: Int) -> Nesting { (0..<depth).reduce(.leaf) { inner, _ in .array(inner) } }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .leaf:
            var container = encoder.singleValueContainer()
            try container.encode(1)
        case .array(let inner):
            var container = encoder.unkeyedContainer()
            try container.encode(inner)
        }
    }
}

@Suite("Sets in canonical order")
struct SetEncodingTests {
    /// What the store holds at `path` on main, parsed.
    private func stored(_ store: String, _ path: String) async throws -> JSONValue {
        let shown = try await git("--git-dir", store, "show", "main:\(path)")
        #expect(shown.status == 0, "\(shown.stderr)")
        return try CanonicalJSON.parse(Array(shown.stdout.utf8))
    }

    private func canonicallySorted(_ elements: [JSONValue]) -> [JSONValue] {
        elements.sorted { CanonicalJSON.serialize($0).lexicographicallyPrecedes(CanonicalJSON.serialize($1)) }
    }

    @Test func aSetIsStoredSortedByTheBytesOfItsElementsAndAnArrayKeepsItsOrder() async throws {
        let (folder, store) = try makeStore(Collections.self)
        _ = folder
        try await store.save(Collections.sample)
        let json = try await stored(store.path, "value.json")
        guard case .array(let words)? = json["words"], case .array(let numbers)? = json["numbers"],
            case .array(let groups)? = json["groups"], case .array(let points)? = json["points"]
        else { Issue.record("not arrays: \(json)"); return }
        #expect(words == Collections.sample.words.sorted().map { .string($0) })
        // By bytes, not by value: "10" comes before "2".
        #expect(numbers == Collections.sample.numbers.map(String.init).sorted().map { .number($0) })
        #expect(points.count == 10 && points == canonicallySorted(points))
        #expect(groups.count == 10 && groups == canonicallySorted(groups))
        for case .array(let group) in groups { #expect(group.count == 5 && group == canonicallySorted(group)) }
        #expect(json["list"] == .array(Collections.sample.list.map { .string($0) }))
        try await expectFsckClean(store.path)
    }

    @Test func aDictionaryWrittenAsKeysAndValuesIsSortedByItsKeys() async throws {
        let (folder, store) = try makeStore(Collections.self)
        _ = folder
        try await store.save(Collections.sample)
        let json = try await stored(store.path, "value.json")
        guard case .array(let flat)? = json["byPoint"], case .object(let byNumber)? = json["byNumber"] else {
            Issue.record("not an array and an object: \(json)"); return
        }
        let keys = stride(from: 0, to: flat.count, by: 2).map { flat[$0] }
        #expect(keys.count == 20 && keys == canonicallySorted(keys))
        #expect(byNumber.count == 20)
        #expect(try await store.value()?.byPoint == Collections.sample.byPoint)
    }

    @Test func theSameValueSavedTwiceFromTwoProcessesMakesOneCommit() async throws {
        let writer = productsFolder() + "/forkstore-stress-writer"
        for kind in ["value", "records"] {
            let folder = TemporaryFolder()
            let path = folder.child("store")
            if kind == "value" {
                _ = try await Store<TaggedNote>.create(at: path)
            } else {
                _ = try await RecordStore<TaggedNote>.create(at: path)
            }
            var heads: [String] = []
            for _ in 0..<2 {
                let result = try await run(writer, ["note", kind, path])
                #expect(result.status == 0, "\(result.stderr)")
                heads += result.stdout.split(separator: "\n").map { String($0.split(separator: " ").last ?? "") }
            }
            // The store's first commit and the first save; every later write left main alone.
            #expect(try await git("--git-dir", path, "rev-list", "--count", "main").stdout == "2\n", "\(kind)")
            #expect(heads.count == 4 && Set(heads).count == 1, "\(kind): \(heads)")
            try await expectFsckClean(path)
        }
    }

    @Test func withoutSetsTheEncoderWritesWhatJSONEncoderWritesCanonicalized() throws {
        let value = Everything()
        let expected = try CanonicalJSON.canonicalize(Array(JSONEncoder().encode(value)))
        #expect(String(decoding: expected, as: UTF8.self).contains("9223372036854775807000"))
        #expect(String(decoding: CanonicalJSON.serialize(try JSONValueEncoder().encode(value)), as: UTF8.self)
            == String(decoding: expected, as: UTF8.self))
        #expect(try JSONValueEncoder().encode("text") == .string("text"))
        #expect(try JSONValueEncoder().encode(1e-7) == .number("1e-7"))
    }

    @Test func whatJSONCannotHoldIsRefusedAsJSONEncoderRefusesIt() throws {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([1, .nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Float.infinity) }
        // Readers read 512 levels, so writers write no more.
        #expect(try JSONValueEncoder().encode(Nesting.deep(512)) != .null)
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Nesting.deep(513)) }
        // A top-level value must write something.
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Everything.Silent()) }
    }
}
