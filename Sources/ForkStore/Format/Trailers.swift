/// A `Key: value` line at the end of a commit message, as `git interpret-trailers` reads it.
public struct Trailer: Sendable, Hashable {
    /// The key, such as `Model-Version`.
    public var key: String
    /// The value, trimmed.
    public var value: String

    /// Makes a trailer.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

extension [Trailer] {
    /// The values of the trailers with this key, in order; keys compare ASCII
    /// case-insensitively, as git compares them.
    func values(forKey key: String) -> [String] {
        func lowered(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
        return filter { $0.key.utf8.elementsEqual(key.utf8, by: { lowered($0) == lowered($1) }) }.map(\.value)
    }
}

/// The trailer keys ForkStore writes and reads.
enum TrailerKey {
    static let modelVersion = "Model-Version"
    static let formatVersion = "Format-Version"
    static let lamport = "Lamport"
    static let clock = "Clock"
    static let replica = "Replica"
    static let clockClamped = "Clock-Clamped"
    static let recordCount = "Record-Count"
    static let mergedFork = "Merged-Fork"
    static let mergeStrategy = "Merge-Strategy"
    static let mergeStrategies = "Merge-Strategies"
    static let mergeConflicts = "Merge-Conflicts"
    static let mergeConflict = "Merge-Conflict"
    static let checkpointOf = "Checkpoint-Of"
    static let checkpointAfter = "Checkpoint-After"
}

/// Commit messages of the form "free text, blank line, trailer block", written and read the
/// way stock git reads trailers with its default configuration, so that `git log
/// --format=%(trailers)`, `git interpret-trailers --parse` and ForkStore agree on every
/// commit ForkStore writes. Where git's two readers could disagree, or git's reading depends
/// on configuration, the message is malformed: refused, never guessed (Schema/FORMAT.md 5).
enum CommitMessage {
    /// A message read: its free text, its trailers in order, and why it is malformed, if it is.
    struct Parsed {
        var text: String
        var trailers: [Trailer]
        var problem: String?
    }

    /// What a writer writes when it is given no free text: git reads a message's first
    /// paragraph as its title, never as trailers.
    static let untitled = "(no message)"

    /// The message of a commit: `text` made safe for git's reading, a blank line, then one
    /// `Key: value` line per trailer.
    static func compose(_ text: String, trailers: [Trailer]) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            $0 == "\n" || $0 == "\t" || !$0.isControl
        }))
        let lines = cleaned.trimmingWhitespaceAndNewlines().unicodeScalars
            .split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
            .map { isPatchDivider($0) || isScissors($0) ? " " + $0 : String($0) }
        let free = lines.joined(separator: "\n")
        let block = trailers.map { "\($0.key): \(TrailerText.singleLine($0.value))" }.joined(separator: "\n")
        return (free.isEmpty ? untitled : free) + "\n\n" + block + "\n"
    }

    /// Reads a message as git does: the trailer block is the last paragraph, when it is not
    /// the title and every line of it is a trailer (or continues one).
    static func parse(_ message: String) -> Parsed {
        // Lines split at LF only, as git splits them ("\r\n" is one Character in Swift).
        var lines = message.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
        func malformed(_ reason: String) -> Parsed {
            Parsed(text: message.trimmingWhitespaceAndNewlines(), trailers: [], problem: reason)
        }
        if lines.count > 1, let first = lines.first, isBlank(first) {
            return malformed("it starts with a blank line, which git log skips and git interpret-trailers does not")
        }
        if lines.contains(where: isPatchDivider) {
            return malformed("a line starts with '---', which git interpret-trailers reads as the start of a patch")
        }
        if lines.contains(where: isScissors) {
            return malformed("it holds git's scissors line, after which git ignores the message")
        }
        while let last = lines.last, isBlank(last) { lines.removeLast() }
        if let last = lines.last, last.utf8.first == UInt8(ascii: "#") {
            return malformed("its last line starts with '#', a comment line to git")
        }
        if let conflicts = lines.lastIndex(where: { $0.utf8.elementsEqual("Conflicts:".utf8) }),
           lines[(conflicts + 1)...].allSatisfy({ $0.isEmpty || $0.utf8.first == UInt8(ascii: "\t") || $0.utf8.first == UInt8(ascii: "#") }) {
            return malformed("it ends with a 'Conflicts:' block, which git leaves out of the message")
        }
        // Joined only when it is the answer: most messages end in trailers.
        func freeTextOnly() -> Parsed { Parsed(text: lines.joined(separator: "\n"), trailers: [], problem: nil) }
        guard let titleEnd = lines.firstIndex(where: isBlank), let lastBlank = lines.lastIndex(where: isBlank),
              titleEnd <= lastBlank, lastBlank + 1 < lines.count
        else { return freeTextOnly() }
        let block = lines[(lastBlank + 1)...]
        guard block.contains(where: { separatorIndex(in: $0) != nil }) else { return freeTextOnly() }
        var trailers: [Trailer] = []
        for line in block {
            if let separator = separatorIndex(in: line) {
                trailers.append(Trailer(key: String(line[..<separator]).trimmingGitWhitespace(),
                                        value: String(line.unicodeScalars[line.unicodeScalars.index(after: separator)...])))
            } else if !trailers.isEmpty, line.utf8.first == UInt8(ascii: " ") || line.utf8.first == UInt8(ascii: "\t") {
                trailers[trailers.count - 1].value += "\n" + line
            } else {
                return malformed("its last paragraph mixes trailers with other lines, which git reads by its configuration")
            }
        }
        var text = lines[..<lastBlank]
        while let last = text.last, isBlank(last) { text.removeLast() }
        return Parsed(text: text.joined(separator: "\n"), trailers: trailers.map { Trailer(key: $0.key, value: unfolded($0.value)) }, problem: nil)
    }

    /// The colon of a trailer line: a token of ASCII letters, digits and `-` at the start of
    /// the line, then optional spaces or tabs (git's `find_separator`).
    private static func separatorIndex(in line: Substring) -> Substring.Index? {
        var sawToken = false, sawSpace = false
        for index in line.unicodeScalars.indices {
            let scalar = line.unicodeScalars[index]
            if scalar == ":" { return sawToken ? index : nil }
            // ASCII letters, digits and '-' (compared as ranges: Unicode properties are slow).
            if !sawSpace, ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" {
                sawToken = true
            } else if sawToken, scalar == " " || scalar == "\t" {
                sawSpace = true
            } else {
                return nil
            }
        }
        return nil
    }

    /// git's `--unfold`: trimmed, each line break and the whitespace after it one space.
    private static func unfolded(_ value: String) -> String {
        // A value on one line (nearly all) only needs trimming.
        guard value.utf8.contains(UInt8(ascii: "\n")) else { return value.trimmingGitWhitespace() }
        var result = String.UnicodeScalarView()
        var skippingSpace = false
        for scalar in value.unicodeScalars {
            if scalar == "\n" {
                result.append(" ")
                skippingSpace = true
            } else if !(skippingSpace && scalar.isGitWhitespace) {
                skippingSpace = false
                result.append(scalar)
            }
        }
        return String(result).trimmingGitWhitespace()
    }

    private static func isBlank(_ line: Substring) -> Bool {
        line.unicodeScalars.allSatisfy(\.isGitWhitespace)
    }

    /// git's patch divider: `---` followed by whitespace or the end of the line.
    private static func isPatchDivider(_ line: Substring) -> Bool {
        guard line.utf8.starts(with: "---".utf8) else { return false }
        return line.unicodeScalars.dropFirst(3).first.map(\.isGitWhitespace) ?? true
    }

    /// The line after which `git commit` (and its trailer reader) ignores the message.
    private static func isScissors(_ line: Substring) -> Bool {
        line.utf8.elementsEqual("# ------------------------ >8 ------------------------".utf8)
    }
}

/// How text that may hold anything (record ids, app-supplied strategy names) is written
/// into a trailer value so that it stays on its line and reads back exactly.
enum TrailerText {
    /// `%` and control characters (Unicode category Cc) as `%XX` of their UTF-8 bytes.
    static func escapingControls(_ text: String) -> String {
        percentEncoding(text) { $0 != "%" && !$0.isControl }
    }

    /// Every byte outside `A–Z a–z 0–9 - . _` as `%XX`: for names inside lists and parentheses.
    static func escapingAllButUnreserved(_ text: String) -> String {
        percentEncoding(text) { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0)) }
    }

    /// A value as one line: control characters (line breaks included) are never written raw.
    static func singleLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isControl ? " " : $0 })).trimmingGitWhitespace()
    }

    private static func percentEncoding(_ text: String, keeping keep: (Unicode.Scalar) -> Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if keep(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 {
                    result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
                }
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// Unicode general category Cc: U+0000–U+001F and U+007F–U+009F.
    var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }

    /// What git's own `isspace` calls whitespace: space, TAB, LF and CR (not VT or FF, unlike C's).
    var isGitWhitespace: Bool { value == 0x20 || value == 0x09 || value == 0x0A || value == 0x0D }
}

extension StringProtocol {
    func trimmingWhitespaceAndNewlines() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }

    /// Trimmed of what git trims: its four whitespace characters only (U+00A0 and U+2028 stay).
    func trimmingGitWhitespace() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while scalars.first?.isGitWhitespace == true { scalars.removeFirst() }
        while scalars.last?.isGitWhitespace == true { scalars.removeLast() }
        return String(Substring(scalars))
    }
}
