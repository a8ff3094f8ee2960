import Foundation

extension Note {
    /// One line for `list`: id, a check box, the title and the tags.
    var line: String {
        let box = done ? "[x]" : "[ ]"
        let tagText = tags.sorted().map { "#\($0)" }.joined(separator: " ")
        return [id, box, title, tagText].filter { !$0.isEmpty }.joined(separator: "  ")
    }

    /// The note with its body, for the demo and `show`.
    var card: String {
        var text = line
        if !body.isEmpty {
            text += "\n" + body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
        }
        return text
    }

    /// A fresh id: 12 hexadecimal digits.
    static func makeID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12)).lowercased()
    }
}

/// Writes notes as the `list --json` array: exactly id, title, body, tags (sorted) and done.
enum NotesJSON {
    static func encode(_ notes: [Note]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(notes), as: UTF8.self)
    }
}
