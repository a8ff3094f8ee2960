import Foundation

// `list --json` writes every note it lists: written here byte by byte rather than through
// `JSONEncoder`, which took more time than reading and decoding the notes. The bytes are the
// ones `NoteJSON.encoder` gives (pretty-printed, keys sorted, slashes not escaped, ISO 8601
// dates); ForkNotesCLITests checks the two agree.
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
            JSONObjectWriter.string(completedAt.formatted(.iso8601), into: &output)
        }
        object.key("done", into: &output)
        output.append(contentsOf: done ? Self.trueBytes : Self.falseBytes)
        if let due {
            object.key("due", into: &output)
            JSONObjectWriter.string(due.formatted(.iso8601), into: &output)
        }
        object.key("id", into: &output)
        JSONObjectWriter.string(id, into: &output)
        object.key("tags", into: &output)
        JSONObjectWriter.array(tags, indent: indent + 4, into: &output) { tag, _, output in JSONObjectWriter.string(tag, into: &output) }
        object.key("title", into: &output)
        JSONObjectWriter.string(title, into: &output)
        if let updatedAt {
            object.key("updatedAt", into: &output)
            JSONObjectWriter.string(updatedAt.formatted(.iso8601), into: &output)
        }
        object.end(into: &output)
    }

    private static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8)
}

/// Writes one JSON object's members in `JSONEncoder`'s pretty-printed form, the caller
/// giving them in sorted order.
private struct JSONObjectWriter {
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
