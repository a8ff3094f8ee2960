import ArgumentParser
import Foundation

extension String {
    /// The text with every character that could steer a terminal written as an escape
    /// (`\u{1b}`): C0 and C1 control characters, DEL, line and paragraph separators, and the
    /// bidirectional overrides that can make text read differently from what it is. Data from
    /// a store or a remote goes through this before it is printed (`--json` escapes by JSON's
    /// own rules instead).
    var escapedForTerminal: String {
        var result = ""
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

enum Terminal {
    /// Writes one line to standard error, escaped for the terminal.
    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text.escapedForTerminal + "\n").utf8))
    }
}

/// An error whose message is printed escaped for the terminal: what a remote says in an error
/// cannot steer the terminal either.
struct TerminalSafeError: Error, CustomStringConvertible {
    let description: String

    /// `error` with its message escaped; ArgumentParser's own errors and exit codes pass as
    /// they are, so usage errors and exit codes keep their meaning.
    static func wrapping(_ error: any Error) -> any Error {
        switch error {
        case is ExitCode, is CleanExit, is ValidationError: error
        default: TerminalSafeError(description: String(describing: error).escapedForTerminal)
        }
    }
}
