import ForkStoreGit

/// A commit object's content as git stores it: header fields, then a blank line and the
/// message. Compaction copies commits through it, changing only their parents and dropping
/// their signature (a copy is signed afresh, or not at all), so everything else (the tree,
/// author and committer with their times, the message and its trailers) stays byte for byte.
struct CommitContent {
    /// One header field: its name and its value, continuation lines included (each after a LF).
    struct Field {
        var name: [UInt8]
        var value: [UInt8]
    }

    var fields: [Field]
    /// The message: everything after the header's blank line.
    var message: [UInt8]

    /// Reads raw commit content; nil when it has no blank line ending the header.
    init?(_ bytes: [UInt8]) {
        var fields: [Field] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = bytes[start..<end]
            if line.isEmpty {
                self.fields = fields
                self.message = Array(bytes[min(end + 1, bytes.count)...])
                return
            }
            if line.first == 0x20, !fields.isEmpty {
                fields[fields.count - 1].value += [0x0A] + line.dropFirst()
            } else {
                guard let space = line.firstIndex(of: 0x20) else { return nil }
                fields.append(Field(name: Array(line[..<space]), value: Array(line[(space + 1)...])))
            }
            start = end + 1
        }
        return nil
    }

    init(fields: [Field], message: [UInt8]) {
        self.fields = fields
        self.message = message
    }

    /// The first value of the field `name`.
    func value(of name: String) -> [UInt8]? {
        fields.first { $0.name.elementsEqual(name.utf8) }?.value
    }

    /// The content with `parents` in place of its parent fields (written after the tree) and
    /// without a `gpgsig` field.
    func copied(onto parents: [ObjectID]) -> CommitContent {
        var kept = fields.filter { !$0.name.elementsEqual("parent".utf8) && !$0.name.elementsEqual("gpgsig".utf8) }
        let at = (kept.firstIndex { $0.name.elementsEqual("tree".utf8) } ?? -1) + 1
        kept.insert(contentsOf: parents.map { Field(name: Array("parent".utf8), value: Array($0.hex.utf8)) }, at: at)
        return CommitContent(fields: kept, message: message)
    }

    /// The content as git stores it.
    var bytes: [UInt8] {
        var result: [UInt8] = []
        for field in fields {
            result += field.name
            result.append(0x20)
            for byte in field.value {
                result.append(byte)
                if byte == 0x0A { result.append(0x20) }
            }
            result.append(0x0A)
        }
        result.append(0x0A)
        return result + message
    }
}
