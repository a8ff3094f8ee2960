@testable import forknotes
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes writes dates as Foundation's ISO 8601 style does")
struct ISO8601WritingTests {
    /// `list --json` writes dates itself: each must be the text `Date.ISO8601FormatStyle`
    /// gives, in quotes. Random instants of every year it writes itself and around, with
    /// fractions of a second (rounded down, before 2001 too), and the edges of days, leap
    /// years, centuries and the range Foundation keeps.
    @Test func everyDateIsWrittenAsFoundationFormatsIt() {
        var random = SplitMix(state: 1_583)
        var instants: [Double] = [
            0, -0.1, -0.9, 0.9, 59.999_999_9, -1, 86_399.999_999, -13_190_860_800, -13_190_860_800.5,
            252_423_993_599.999, 252_423_993_600, -63_114_076_800, 1e12, -1e12, 951_782_400, 951_868_799.5,
        ]
        for _ in 0..<20_000 {
            instants.append(Double.random(in: -14e9...253e9, using: &random))
        }
        for day in stride(from: -13_190_860_800.0, to: 252_423_993_600, by: 86_400 * 97) {
            instants += [day, day - 0.000_1, day + 0.5]
        }
        for instant in instants {
            let date = Date(timeIntervalSinceReferenceDate: instant)
            var written: [UInt8] = []
            JSONObjectWriter.date(date, into: &written)
            #expect(String(decoding: written, as: UTF8.self) == "\"\(date.formatted(.iso8601))\"", "\(instant)")
        }
    }
}
