import ForkStore
import Foundation

extension String {
    /// The text with every character that could steer a terminal written as an escape. Data
    /// from a store or a remote goes through this before it is printed (`--json` escapes by
    /// JSON's own rules instead).
    var escapedForTerminal: String { TerminalText.escaping(self) }
}

enum Terminal {
    /// Writes one line to standard error, escaped for the terminal.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text.escapedForTerminal + "\n").utf8))
    }
}
