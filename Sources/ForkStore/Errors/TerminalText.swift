/// How ForkStore puts text it does not control (ids, paths, what a remote or a file said) into
/// messages: every character that could steer a terminal is written as an escape (`\u{1b}`).
/// The sample CLI uses it when printing store data on a terminal too.
package enum TerminalText {
    /// `text` with C0 and C1 control characters, DEL, the line and paragraph separators and the
    /// bidirectional controls (which can make text read as something else) written as
    /// `\u{…}` escapes; everything else as it is.
    package static func escaping(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
