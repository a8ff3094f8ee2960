internal import CLibGit2

/// Who made a commit, as written into its author and committer lines.
package struct Signature: Sendable {
    package var name: String
    package var email: String

    package init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

/// A commit as read from the object database.
package struct CommitObject: Sendable {
    package var id: ObjectID
    package var tree: ObjectID
    package var parents: [ObjectID]
    package var message: String
    /// Committer time, seconds since 1970.
    package var time: Int64
    /// Committer time zone offset in minutes.
    package var timeOffset: Int32
    package var authorName: String
    package var authorEmail: String
}

extension Repository {
    /// Writes a commit object without moving any reference. With `sign`, the commit carries
    /// the signature `sign` returns for its content, in the `gpgsig` header (as `git commit -S`
    /// writes it; `git verify-commit` checks it).
    package func createCommit(
        tree: ObjectID, parents: [ObjectID], message: String, signature: Signature,
        sign: (([UInt8]) throws -> String)? = nil
    ) throws(GitError) -> ObjectID {
        var signaturePointer: UnsafeMutablePointer<git_signature>?
        try check("git_signature_now") {
            git_signature_now(&signaturePointer, signature.name, signature.email)
        }
        defer { git_signature_free(signaturePointer) }

        var treeOID = tree.raw
        var treePointer: OpaquePointer?
        try check("git_tree_lookup") { git_tree_lookup(&treePointer, pointer, &treeOID) }
        defer { git_tree_free(treePointer) }

        var parentPointers: [OpaquePointer?] = []
        defer { parentPointers.forEach { git_commit_free($0) } }
        for parent in parents {
            var oid = parent.raw
            var commit: OpaquePointer?
            try check("git_commit_lookup") { git_commit_lookup(&commit, pointer, &oid) }
            parentPointers.append(commit)
        }

        var oid = git_oid()
        guard let sign else {
            try check("git_commit_create") {
                parentPointers.withUnsafeMutableBufferPointer { buffer in
                    git_commit_create(
                        &oid, pointer, nil, signaturePointer, signaturePointer, "UTF-8", message,
                        treePointer, buffer.count, buffer.baseAddress)
                }
            }
            return ObjectID(oid)
        }
        var content = git_buf()
        defer { git_buf_dispose(&content) }
        try check("git_commit_create_buffer") {
            parentPointers.withUnsafeMutableBufferPointer { buffer in
                git_commit_create_buffer(
                    &content, pointer, signaturePointer, signaturePointer, "UTF-8", message, treePointer,
                    buffer.count, buffer.baseAddress)
            }
        }
        let bytes = Array(UnsafeRawBufferPointer(start: content.ptr, count: content.size))
        let armored: String
        do {
            armored = try sign(bytes)
        } catch {
            throw GitError(function: "signing a commit", rawCode: -1, errorClass: 0, message: "\(error)")
        }
        try check("git_commit_create_with_signature") {
            git_commit_create_with_signature(&oid, pointer, content.ptr, armored, "gpgsig")
        }
        return ObjectID(oid)
    }

    /// A commit's `gpgsig` signature and the content it signs, read from the raw object by
    /// ``SignedCommit`` (not by libgit2, which also looks in the message); nil when it is not
    /// signed, a failure when its header can be read more than one way.
    package func commitSignature(_ id: ObjectID) throws(GitError) -> Result<SignedCommit, SignedCommit.Ambiguity>? {
        var result: Result<SignedCommit, SignedCommit.Ambiguity>?
        try withRawObject(id) { (kind, data) throws(GitError) in
            guard kind == .commit else {
                throw GitError(function: "reading a commit", rawCode: -1, errorClass: 0, message: "object \(id.hex) is not a commit")
            }
            result = SignedCommit.reading(Array(data))
        }
        return result
    }

    /// Reads a commit. A missing object or an object of another type throws.
    package func readCommit(_ id: ObjectID) throws(GitError) -> CommitObject {
        var oid = id.raw
        var commit: OpaquePointer?
        try check("git_commit_lookup") { git_commit_lookup(&commit, pointer, &oid) }
        defer { git_commit_free(commit) }
        let parentCount = git_commit_parentcount(commit)
        var parents: [ObjectID] = []
        for index in 0..<parentCount {
            if let parent = git_commit_parent_id(commit, index) {
                parents.append(ObjectID(parent.pointee))
            }
        }
        let message = git_commit_message_raw(commit).map { String(cString: $0) } ?? ""  // raw: leading blank lines kept, as git interpret-trailers reads them
        let author = git_commit_author(commit)
        return CommitObject(
            id: id,
            tree: ObjectID(git_commit_tree_id(commit).pointee),
            parents: parents,
            message: message,
            time: git_commit_time(commit),
            timeOffset: git_commit_time_offset(commit),
            authorName: author.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "",
            authorEmail: author.flatMap { $0.pointee.email.map { String(cString: $0) } } ?? ""
        )
    }
}
