internal import CLibGit2

/// A git object id (SHA-1), wrapping libgit2's `git_oid`.
package struct ObjectID: Hashable, Sendable, CustomStringConvertible, Comparable {
    var raw: git_oid

    init(_ raw: git_oid) { self.raw = raw }

    /// Parses 40 hexadecimal digits; returns nil for anything else.
    package init?(hex: String) {
        guard hex.utf8.count == 40, hex.utf8.allSatisfy({ $0.isHexDigit }) else { return nil }
        var oid = git_oid()
        guard git_oid_fromstr(&oid, hex) == 0 else { return nil }
        self.raw = oid
    }

    package var hex: String {
        var oid = raw
        var buffer = [CChar](repeating: 0, count: 41)
        git_oid_tostr(&buffer, buffer.count, &oid)
        return String(decoding: buffer.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package var description: String { hex }

    package static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        var l = lhs.raw, r = rhs.raw
        return git_oid_equal(&l, &r) != 0
    }

    package static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        var l = lhs.raw, r = rhs.raw
        return git_oid_cmp(&l, &r) < 0
    }

    package func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: raw.id) { hasher.combine(bytes: $0) }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
}

extension ObjectID {
    /// The id of the empty tree, the same in every repository.
    package static let emptyTreeHex = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

    /// The id git would give `bytes` stored as a blob (`git hash-object --stdin`), without
    /// writing anything.
    package static func blobHash(of bytes: [UInt8]) -> ObjectID {
        var oid = git_oid()
        // git_odb_hash fails only for an object type it does not know; a blob is always known.
        _ = bytes.withUnsafeBytes { buffer in
            git_odb_hash(&oid, buffer.baseAddress, buffer.count, GIT_OBJECT_BLOB)
        }
        return ObjectID(oid)
    }
}
