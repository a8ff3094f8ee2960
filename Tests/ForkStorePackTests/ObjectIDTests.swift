import ForkStorePack
import ForkStoreTestSupport
import Testing

@Suite("Object ids read from hexadecimal text")
struct ObjectIDTests {
    @Test func anIdReadsBackFromItsHexInEitherCase() throws {
        var random = SplitMix(state: 27)
        for _ in 0..<1_000 {
            let id = try #require(ObjectID(copying: random.bytes(20)))
            #expect(ObjectID(hex: id.hex) == id)
            #expect(ObjectID(hex: id.hex.uppercased()) == id)
        }
    }

    @Test func everyByteIsADigitExactlyWhenItIsAHexadecimalOne() {
        let digits = Set("0123456789abcdefABCDEF".utf8)
        let rest = String(repeating: "0", count: 39)
        for byte in UInt8(0)...UInt8(0x7F) {
            let text = String(decoding: [byte], as: UTF8.self)
            let parsed = ObjectID(hex: text + rest), parsedLast = ObjectID(hex: rest + text)
            #expect((parsed != nil) == digits.contains(byte) && (parsedLast != nil) == digits.contains(byte), "byte \(byte)")
            if let parsed { #expect(parsed.hex.first == Character(text.lowercased())) }
        }
    }

    @Test(arguments: [
        "", String(repeating: "a", count: 39), String(repeating: "a", count: 41),
        String(repeating: "a", count: 39) + "g", " " + String(repeating: "a", count: 39),
        // 40 bytes of UTF-8 that are 20 characters, none a digit.
        String(repeating: "é", count: 20),
    ])
    func textThatIsNotFortyHexDigitsIsRefused(text: String) {
        #expect(ObjectID(hex: text) == nil)
    }
}
