internal import CLibGit2
@_exported import ForkStorePack

// The git layer speaks of objects by the pack format's ``ObjectID`` (re-exported, so modules
// above see one vocabulary); libgit2's `git_oid` holds the same 20 bytes.

extension ObjectID {
    init(_ raw: git_oid) {
        self.init(bytes: raw.id)
    }

    /// The id as libgit2's `git_oid`.
    var raw: git_oid {
        var oid = git_oid()
        oid.id = bytes
        return oid
    }

    /// The id of an object of libgit2's `type` holding `bytes` (``hash(of:kind:)``).
    static func hash(of bytes: UnsafeRawBufferPointer, type: git_object_t) -> ObjectID {
        hash(of: bytes, kind: ObjectKind(type) ?? .blob)
    }
}

extension ObjectKind {
    /// The kind libgit2's `type` names; nil for anything but a commit, tree, blob or tag.
    init?(_ type: git_object_t) {
        guard type.rawValue >= 1, type.rawValue <= 4 else { return nil }
        self.init(rawValue: UInt8(type.rawValue))
    }
}
