@testable import ForkStore
import Foundation

extension FuzzTarget {
    /// Commit messages, trailers and stamps: the input is a raw commit message, read as
    /// libgit2's message reaches the reader (up to the first NUL, invalid UTF-8 repaired). A
    /// message read without problem, written again by `compose` with its text and trailers,
    /// reads back to the same trailers (values made single-line) without problem; the stamp
    /// keeps its numbers in range.
    static let commitMessage = FuzzTarget(name: "commit-message") { bytes in
        let message = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        let parsed = CommitMessage.parse(message)
        let stamp = CommitStamp(parsed)
        check((0..<CommitStamp.limit).contains(stamp.lamport), "Lamport \(stamp.lamport) out of range")
        if let clock = stamp.clock {
            check(clock.milliseconds >= 0 && clock.milliseconds < CommitStamp.limit, "clock \(clock) out of range")
        }
        for text in parsed.trailers.values(forKey: TrailerKey.clock) {
            guard let time = HybridTime(text) else { continue }
            check(HybridTime(time.description) == time, "Clock \(String(reflecting: text)) reads \(time), which does not read back")
        }
        if parsed.problem != nil {
            check(parsed.trailers.isEmpty, "a malformed message keeps trailers: \(shown(bytes))")
        }
        guard parsed.problem == nil, !parsed.trailers.isEmpty else { return }
        for trailer in parsed.trailers {
            check(!trailer.key.isEmpty && trailer.key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") },
                  "trailer key \(String(reflecting: trailer.key)) of \(shown(bytes))")
            check(!trailer.value.contains("\n"), "trailer value \(String(reflecting: trailer.value)) keeps a line break")
        }
        let again = CommitMessage.compose(parsed.text, trailers: parsed.trailers)
        let reread = CommitMessage.parse(again)
        check(reread.problem == nil, "composed again, \(shown(bytes)) is malformed: \(reread.problem ?? "")\n\(String(reflecting: again))")
        let expected = parsed.trailers.map { Trailer(key: $0.key, value: TrailerText.singleLine($0.value)) }
        check(reread.trailers == expected, "composed again, \(shown(bytes)) reads \(reread.trailers), not \(expected)")
    }
}
