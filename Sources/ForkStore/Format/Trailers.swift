import Foundation

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
}

/// Splits and joins commit messages of the form "subject\n\nbody\n\nKey: value\nKey: value\n".
enum CommitMessage {
    /// Appends a trailer block to a message. Control characters other than newlines and tabs
    /// are dropped from the message, and NUL can never reach libgit2's C strings.
    static func compose(_ message: String, trailers: [Trailer]) -> String {
        let cleaned = String(String.UnicodeScalarView(message.unicodeScalars.filter {
            $0 == "\n" || $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F)
        }))
        let body = cleaned.trimmingWhitespaceAndNewlines()
        let block = trailers.map { "\($0.key): \(singleLine($0.value))" }.joined(separator: "\n")
        return (body.isEmpty ? "" : body + "\n\n") + block + "\n"
    }

    /// The message without its trailer block, and the trailers in order.
    static func split(_ message: String) -> (text: String, trailers: [Trailer]) {
        let trimmed = message.trimmingWhitespaceAndNewlines()
        let paragraphs = trimmed.components(separatedBy: "\n\n")
        guard let last = paragraphs.last else { return ("", []) }
        var trailers: [Trailer] = []
        for line in last.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let trailer = parseTrailer(line) else { return (trimmed, []) }
            trailers.append(trailer)
        }
        let text = paragraphs.dropLast().joined(separator: "\n\n")
        return (text, trailers)
    }

    private static func parseTrailer(_ line: Substring) -> Trailer? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = line[..<colon]
        guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            return nil
        }
        let value = line[line.index(after: colon)...].trimmingWhitespaceAndNewlines()
        return Trailer(key: String(key), value: value)
    }

    private static func singleLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ")
    }
}

extension StringProtocol {
    func trimmingWhitespaceAndNewlines() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice.removeFirst() }
        while slice.last?.isWhitespace == true { slice.removeLast() }
        return String(slice)
    }
}
