import ForkStore
import Foundation

extension Note {
    /// One line for `list`: id, a check box, the title and the tags.
    var line: String {
        let box = done ? "[x]" : "[ ]"
        let tagText = tags.sorted().map { "#\($0.escapedForTerminal)" }.joined(separator: " ")
        let dueText = due.map { "due " + $0.formatted(.iso8601.year().month().day()) } ?? ""
        return [id.escapedForTerminal, box, title.escapedForTerminal, tagText, dueText].filter { !$0.isEmpty }.joined(separator: "  ")
    }

    /// The attachments, after the line: `  📎 cat.jpg (2.4 MB)`, marked `(not fetched)` where
    /// the bytes are not local yet.
    func attachmentsLine(isLocal: (Asset) -> Bool) -> String {
        guard !attachments.isEmpty else { return "" }
        return "  attached: " + attachments.sorted { $0.key < $1.key }.map { name, asset in
            "\(name.escapedForTerminal) (\(AttachmentName.size(asset.size))\(isLocal(asset) ? "" : ", not fetched"))"
        }.joined(separator: ", ")
    }

    /// The note with its body, for the demo and `show`.
    var card: String {
        var text = line
        if !body.isEmpty {
            text += "\n" + body.split(separator: "\n", omittingEmptySubsequences: false)
                .map { "    " + String($0).escapedForTerminal }.joined(separator: "\n")
        }
        return text
    }

    /// A fresh id: 12 hexadecimal digits.
    static func makeID() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12)).lowercased()
    }
}
