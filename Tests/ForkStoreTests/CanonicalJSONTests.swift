import ForkStore
import Testing

@Suite("Canonical JSON")
struct CanonicalJSONTests {
    private func canonical(_ text: String) throws -> String {
        String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
    }

    @Test func keysAreSortedByBytesAndIndentedTwoSpaces() throws {
        let text = #"{"b":1,"a":{"z":[1,2,{}],"é":[],"Z":null},"B":true}"#
        #expect(try canonical(text) == """
            {
              "B": true,
              "a": {
                "Z": null,
                "z": [
                  1,
                  2,
                  {}
                ],
                "é": []
              },
              "b": 1
            }

            """)
    }

    /// Members come out sorted by the bytes of their keys and distinct, whatever order the
    /// text gives them in and however a key is written (the parser takes keys already in
    /// order, with no escape, as they are).
    @Test(arguments: [
        (#"{"a":1,"b":2}"#, ["a", "b"]), (#"{"b":1,"a":2}"#, ["a", "b"]), (#"{"ab":1,"a":2}"#, ["a", "ab"]),
        (#"{"\u0062":1,"a":2}"#, ["a", "b"]), (#"{"a":1,"b\n":2,"b":3}"#, ["a", "b", "b\n"]),
        (#"{"é":1,"z":2}"#, ["z", "é"]), (#"{"z":1,"é":2}"#, ["z", "é"]), (#"{"A":1,"a":{"b":2,"a":3}}"#, ["A", "a"]),
    ])
    func membersAreSortedByTheirKeysBytes(_ text: String, _ keys: [String]) throws {
        let value = try JSONValue(parsing: Array(text.utf8))
        guard case .object(let members) = value else {
            Issue.record("\(text) is not an object")
            return
        }
        #expect(members.map(\.key) == keys)
        if case .object(let inner)? = value["a"] { #expect(inner.map(\.key) == ["a", "b"]) }
    }

    @Test(arguments: [#"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"\u0061":1,"a":2}"#, #"{"b":1,"a":2,"b":3}"#])
    func aKeyTwiceIsRefusedHoweverItIsWritten(_ text: String) {
        let error = #expect(throws: CanonicalJSONError.self) { try JSONValue(parsing: Array(text.utf8)) }
        #expect(error?.reason == "duplicate key in object")
    }

    @Test(arguments: [
        ("0", "0"), ("-0", "0"), ("12345678901234567890123", "12345678901234567890123"), ("1.0", "1"),
        ("1.5", "1.5"), ("1e3", "1000"), ("-2.50", "-2.5"), ("0.1", "0.1"), ("1e-5", "0.00001"), ("1e-7", "1e-7"),
        ("1E+30", "1000000000000000000000000000000"), ("9007199254740993.0", "9007199254740993"),
        ("9007199254740992.0", "9007199254740992"), ("9.007199254740992e15", "9007199254740992"), ("100e-2", "1"),
        ("0.0", "0"), ("-0.0e7", "0"), ("0e99999999999", "0"), ("123.456", "123.456"), ("-0.000123", "-0.000123"),
        ("1.5e-7", "1.5e-7"), ("-12.5e-10", "-1.25e-9"), ("1234567890123456789012.5", "1.2345678901234567890125e+21"),
        ("123456789012345678901.5", "123456789012345678901.5"), ("1e308", "1" + String(repeating: "0", count: 308)),
        ("4.9e-324", "4.9e-324"), ("817370715.8577762", "817370715.8577762"), ("-10.05", "-10.05"), ("100.50", "100.5"),
        ("7.0", "7"), ("1.5E2", "150"), ("0.5", "0.5"), ("0.0000005", "5e-7"),
        (String(repeating: "9", count: 309), String(repeating: "9", count: 309)), ("-0.5", "-0.5"), ("10.5", "10.5"),
    ])
    func numbersHaveOneForm(_ input: String, _ expected: String) throws {
        #expect(try canonical(input) == expected + "\n")
    }

    @Test func stringsEscapeOnlyWhatTheyMust() throws {
        let text = #""a\/b \u00e9 \ud83d\ude00 \" \\ \n \t \u0001 \u001f""#
        #expect(try canonical(text) == "\"a/b é 😀 \\\" \\\\ \\n \\t \\u0001 \\u001f\"\n")
    }

    @Test func sameValueSameBytesWhateverTheSpacing() throws {
        let one = try canonical(#"{ "x" : [ 1 , 2 ] , "y" : "z" }"#)
        let two = try canonical("{\"y\":\"z\",\n\"x\":[1,2]}")
        #expect(one == two)
    }

    @Test(arguments: [
        "", "{", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "01", "1.", "-", "+1", "nul", "tru", #""\x""#, #""\ud800""#,
        "\"tab\there\"", #"{"a":1,"a":2}"#, "[1] 2", "NaN", "1e400", "1e309", "1e-325", "1e99999999999", #""\u12""#,
        String(repeating: "9", count: 310), "-" + String(repeating: "1", count: 310),
    ])
    func invalidJSONIsRefused(_ text: String) {
        #expect(throws: CanonicalJSONError.self) { try CanonicalJSON.parse(Array(text.utf8)) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: CanonicalJSONError.self) { try CanonicalJSON.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func deepNestingIsRefusedInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: CanonicalJSONError.self) { try CanonicalJSON.parse(Array(deep.utf8)) }
    }

    @Test func keysThatSwiftConsidersEqualStayDistinct() throws {
        // "é" precomposed and decomposed are equal Swift strings but different JSON keys.
        let text = "{\"e\u{301}\":1,\"é\":2}"
        let value = try CanonicalJSON.parse(Array(text.utf8))
        guard case .object(let members) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(members.count == 2)
    }

    /// What apps get instead of the implementation type: a strict parse into a `JSONValue`,
    /// and the canonical bytes of any value.
    @Test func appsParseStrictlyAndGetCanonicalBytesThroughJSONValue() throws {
        let value = try JSONValue(parsing: Array(#"{"tags":["b","a"],"size":1.50e1,"name":"x"}"#.utf8))
        #expect(value["size"] == .number("15"))
        #expect(String(decoding: value.canonicalBytes, as: UTF8.self) == """
            {
              "name": "x",
              "size": 15,
              "tags": [
                "b",
                "a"
              ]
            }

            """)
        #expect(try JSONValue(parsing: value.canonicalBytes) == value)
        let error = #expect(throws: CanonicalJSONError.self) { try JSONValue(parsing: Array(#"{"a":1, "a":2}"#.utf8)) }
        #expect(error?.reason == "duplicate key in object")
    }
}
