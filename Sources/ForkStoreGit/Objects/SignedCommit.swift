/// A commit object's signature, read as git reads it: from the `gpgsig` field of the header
/// only (the lines before the first blank line), never from the message, with the signed
/// content being the object without that field.
///
/// Strict where git is lenient, because a signature decides who may change a shared store:
/// a header with two signature fields, another field whose name starts `gpgsig` (such as
/// `gpgsig-sha256`), or a NUL byte is refused rather than read one way here and another way
/// by git. (libgit2 1.5's
/// `git_commit_extract_signature` also found a `gpgsig` block moved into the message, so a
/// copy of a signed commit with a new id still verified.)
package struct SignedCommit: Sendable, Equatable {
    /// The armored signature, its lines joined by newlines, ending in one.
    package var signature: String
    /// The bytes the signature signs: the commit object without its `gpgsig` field.
    package var signedData: [UInt8]

    /// Why a commit's signature cannot be read one way only.
    package struct Ambiguity: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Reads the signature of a raw commit object (its content, without git's object header).
    /// Nil when the header has no `gpgsig` field.
    package init?(commit bytes: [UInt8]) throws(Ambiguity) {
        guard !bytes.contains(0) else { throw Ambiguity(description: "the commit holds a NUL byte") }
        var signed: [UInt8] = []
        signed.reserveCapacity(bytes.count)
        var signatureLines: [ArraySlice<UInt8>]?
        var inSignature = false
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            let line = bytes[start..<end]
            if line.first == 0x0A {  // the blank line: the message follows, taken as it is
                signed += bytes[start...]
                break
            }
            if inSignature, line.first == 0x20 {
                signatureLines?.append(line.dropFirst())
            } else {
                inSignature = false
                if line.starts(with: Self.field) {
                    guard signatureLines == nil else { throw Ambiguity(description: "the commit has two gpgsig fields") }
                    signatureLines = [line.dropFirst(Self.field.count)]
                    inSignature = true
                } else if line.starts(with: Self.field.dropLast()) {
                    throw Ambiguity(description: "the commit has another gpgsig field (such as gpgsig-sha256), which this format does not use")
                } else {
                    signed += line
                }
            }
            start = end
        }
        guard let signatureLines else { return nil }
        var text: [UInt8] = []
        for line in signatureLines {
            text += line.last == 0x0A ? line.dropLast() : line
            text.append(0x0A)
        }
        self.signature = String(decoding: text, as: UTF8.self)
        self.signedData = signed
    }

    /// ``init(commit:)`` as a value: nil when unsigned, a failure when ambiguous.
    package static func reading(_ bytes: [UInt8]) -> Result<SignedCommit, Ambiguity>? {
        do {
            return try SignedCommit(commit: bytes).map { .success($0) }
        } catch {
            return .failure(error)
        }
    }

    private static let field = Array("gpgsig ".utf8)
}
