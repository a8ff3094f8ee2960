internal import CLibGit2

extension Repository {
    /// A commit object's content as stored (without git's object header), for writing a copy
    /// of it with other parents, or a commit that takes its committer line.
    package func rawCommit(_ id: ObjectID) throws(GitError) -> [UInt8] {
        var bytes: [UInt8] = []
        try withRawObject(id) { (kind, data) throws(GitError) in
            guard kind == .commit else {
                throw GitError(function: "reading a commit", rawCode: -1, errorClass: 0, message: "object \(id.hex) is not a commit")
            }
            bytes = Array(data)
        }
        return bytes
    }

    /// Writes a commit whose content (header and message, as git stores them) is given in
    /// full, with `armoredSignature` added as its `gpgsig` field when there is one. libgit2
    /// parses the content first, so a malformed header is refused rather than stored.
    package func writeCommit(content: [UInt8], armoredSignature: String?) throws(GitError) -> ObjectID {
        guard !content.contains(0) else {
            throw GitError(function: "writing a commit", rawCode: -1, errorClass: 0, message: "the commit content holds a NUL byte")
        }
        var oid = git_oid()
        let terminated = content + [0]
        try check("git_commit_create_with_signature") {
            terminated.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { text in
                    git_commit_create_with_signature(&oid, pointer, text.baseAddress, armoredSignature, armoredSignature == nil ? nil : "gpgsig")
                }
            }
        }
        return ObjectID(oid)
    }
}
