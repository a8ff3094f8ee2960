import Foundation

// `list --json` writes every note it lists: written here byte by byte rather than through
// `JSONEncoder`, which took more time than reading and decoding the notes. The bytes are the
// ones `NoteJSON.encoder` gives (pretty-printed, keys sorted, slashes not escaped, ISO 8601
// dates); ForkNotesListJSONTests checks the two agree.
extension NoteJSON {
    /// Appends the note as `NoteJSON.encoder` would encode it, each line after the first
    /// indented by `indent` more spaces.
    func write(into output: inout [UInt8], indent: Int) {
        var object = JSONObjectWriter(indent: indent)
        if let attachments {
            object.key("attachments", into: &output)
            JSONObjectWriter.array(attachments, indent: indent + 4, into: &output) { attachment, indent, output in
                var members = JSONObjectWriter(indent: indent)
                members.key("id", into: &output)
                JSONObjectWriter.string(attachment.id, into: &output)
                members.key("local", into: &output)
                output.append(contentsOf: attachment.local ? Self.trueBytes : Self.falseBytes)
                members.key("mediaType", into: &output)
                JSONObjectWriter.string(attachment.mediaType, into: &output)
                members.key("name", into: &output)
                JSONObjectWriter.string(attachment.name, into: &output)
                members.key("size", into: &output)
                output.append(contentsOf: String(attachment.size).utf8)
                members.end(into: &output)
            }
        }
        object.key("body", into: &output)
        JSONObjectWriter.string(body, into: &output)
        if let completedAt {
            object.key("completedAt", into: &output)
            JSONObjectWriter.date(completedAt, into: &output)
        }
        object.key("done", into: &output)
        output.append(contentsOf: done ? Self.trueBytes : Self.falseBytes)
        if let due {
            object.key("due", into: &output)
            JSONObjectWriter.date(due, into: &output)
        }
        object.key("id", into: &output)
        JSONObjectWriter.string(id, into: &output)
        object.key("tags", into: &output)
        JSONObjectWriter.array(tags, indent: indent + 4, into: &output) { tag, _, output in JSONObjectWriter.string(tag, into: &output) }
        object.key("title", into: &output)
        JSONObjectWriter.string(title, into: &output)
        if let updatedAt {
            object.key("updatedAt", into: &output)
            JSONObjectWriter.date(updatedAt, into: &output)
        }
        object.end(into: &output)
    }

    private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)
}

/// Writes one JSON object's members in `JSONEncoder`'s pretty-printed form, the caller
/// giving them in sorted order.
struct JSONObjectWriter {
    /// The spaces before the object's closing brace.
    let indent: Int
    private var members = 0

    init(indent: Int) { self.indent = indent }

    /// Starts a member: the separator from the one before (or the opening brace), its
    /// indentation and its key.
    mutating func key(_ name: StaticString, into output: inout [UInt8]) {
        output.append(contentsOf: members == 0 ? [UInt8(ascii: "{"), 0x0A] : [UInt8(ascii: ","), 0x0A])
        output.append(contentsOf: repeatElement(0x20, count: indent + 2))
        output.append(UInt8(ascii: "\""))
        output.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        output.append(contentsOf: [UInt8(ascii: "\""), 0x20, UInt8(ascii: ":"), 0x20])
        members += 1
    }

    func end(into output: inout [UInt8]) {
        if members == 0 {
            output.append(contentsOf: [UInt8(ascii: "{"), 0x0A, 0x0A])
        } else {
            output.append(0x0A)
        }
        output.append(contentsOf: repeatElement(0x20, count: indent))
        output.append(UInt8(ascii: "}"))
    }

    /// An array whose elements `element` writes, each on its own line `indent` spaces in (the
    /// closing bracket two fewer); an empty one as `JSONEncoder` writes it, a blank line inside.
    static func array<Element>(
        _ elements: [Element], indent: Int, into output: inout [UInt8], _ element: (Element, Int, inout [UInt8]) -> Void
    ) {
        output.append(contentsOf: [UInt8(ascii: "["), 0x0A])
        if elements.isEmpty { output.append(0x0A) }
        for (number, item) in elements.enumerated() {
            if number > 0 { output.append(contentsOf: [UInt8(ascii: ","), 0x0A]) }
            output.append(contentsOf: repeatElement(0x20, count: indent))
            element(item, indent, &output)
            if number == elements.count - 1 { output.append(0x0A) }
        }
        output.append(contentsOf: repeatElement(0x20, count: indent - 2))
        output.append(UInt8(ascii: "]"))
    }

    /// A date as `JSONEncoder`'s `.iso8601` strategy writes it (`Date.ISO8601FormatStyle`:
    /// UTC, whole seconds rounded down, `2026-11-25T07:25:15Z`), in quotes. Written here for
    /// the years 1583 to 9999: Foundation's formatting, one date or more per note, took 2.5%
    /// of a listing. Other dates go through Foundation, whose calendar is Julian before 1582.
    static func date(_ date: Date, into output: inout [UInt8]) {
        // Whole seconds since 2001, rounded down there as Foundation does (not after adding
        // the 31 years, where a double's last bit could round 59.9999999 up to a minute).
        let seconds = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard seconds >= -13_190_860_800, seconds < 252_423_993_600 else {  // 1583-01-01, 10000-01-01
            return string(date.formatted(.iso8601), into: &output)
        }
        // Counted from 1583, so that every quotient below is of a number not below zero.
        let since1583 = Int(seconds) + 13_190_860_800
        let second = since1583 % 86_400
        // The proleptic Gregorian date of a day count (Howard Hinnant's civil_from_days), on
        // 400-year eras that begin on 1 March of the year 0: 1583-01-01 is day 578,119.
        let shifted = since1583 / 86_400 + 578_119
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        output.append(UInt8(ascii: "\""))
        digits(year, 4)
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(second / 3_600, 2)
        output.append(UInt8(ascii: ":"))
        digits(second / 60 % 60, 2)
        output.append(UInt8(ascii: ":"))
        digits(second % 60, 2)
        output.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    /// A string as `JSONEncoder` escapes it without escaping slashes: the quote, the
    /// backslash and control characters (short forms where JSON has them); the rest as is.
    static func string(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for (position, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
                start = position + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }
}
