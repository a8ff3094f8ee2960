import ForkStoreGit

extension FuzzTarget {
    /// Commit signatures (``SignedCommit``): the input is a raw commit object. A signature read
    /// without ambiguity signs exactly the object without the header's `gpgsig` field (checked
    /// against a second, line-by-line reading), and the signed data holds no signature field
    /// in its header; an object with no such field has no signature.
    static let signedCommit = FuzzTarget(name: "signed-commit") { bytes in
        guard let result = SignedCommit.reading(Array(bytes)) else {
            check(!headerLines(of: bytes).contains { $0.starts(with: Array("gpgsig ".utf8)) }, "a gpgsig field was missed in \(shown(bytes))")
            return
        }
        guard case .success(let signed) = result else { return }
        var expected: [UInt8] = [], inField = false
        let lines = headerLines(of: bytes)
        for line in lines {
            if line.starts(with: Array("gpgsig ".utf8)) || (inField && line.first == 0x20) {
                inField = true
                continue
            }
            inField = false
            expected += line
        }
        expected += bytes.dropFirst(lines.reduce(0) { $0 + $1.count })
        check(signed.signedData == expected, "signed data of \(shown(bytes)) is not the object without its gpgsig field")
        check(!headerLines(of: signed.signedData).contains { $0.starts(with: Array("gpgsig".utf8)) }, "a signature field stays signed")
    }

    /// The header's lines (each with its newline), up to the blank line before the message.
    private static func headerLines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = [], start = 0
        while start < bytes.count, bytes[start] != 0x0A {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            lines.append(bytes[start..<end])
            start = end
        }
        return lines
    }
}
