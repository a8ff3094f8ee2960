internal import CLibGit2
internal import Crypto

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

    /// The first byte of the id (the fan-out key of a pack index).
    var firstByte: UInt8 { raw.id.0 }

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
        bytes.withUnsafeBytes { hash(of: $0, type: GIT_OBJECT_BLOB) }
    }

    /// The id of an object of `type` holding `bytes`: the SHA-1 of git's header
    /// (`blob 12\0`) and the bytes. Computed with the hardware's SHA-1 (swift-crypto) for
    /// objects written here, rather than libgit2's slower collision-detecting one, which
    /// stays on for what is read from disk or a remote.
    static func hash(of bytes: UnsafeRawBufferPointer, type: git_object_t) -> ObjectID {
        let name =
            switch type {
            case GIT_OBJECT_TREE: "tree"
            case GIT_OBJECT_COMMIT: "commit"
            case GIT_OBJECT_TAG: "tag"
            default: "blob"
            }
        var hasher = Insecure.SHA1()
        hasher.update(data: Array("\(name) \(bytes.count)\0".utf8))
        hasher.update(bufferPointer: bytes)
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { target in
            for (index, byte) in hasher.finalize().enumerated() { target[index] = byte }
        }
        return ObjectID(oid)
    }
}
