internal import CLibGit2

/// What makes a repository handle a batch handle (``Repository/withObjectsInOnePack(_:)``):
/// its new objects go into memory (libgit2's mempack, which the handle's object database owns
/// and frees), and its trees stay parsed between updates (``TreeWorkspace``). A handle has one
/// for its whole life or none.
final class BatchObjects {
    private let memory: UnsafeMutablePointer<git_odb_backend>
    /// The batch's trees, kept parsed between updates.
    let workspace = TreeWorkspace()

    init(memory: UnsafeMutablePointer<git_odb_backend>) {
        self.memory = memory
    }

    /// Writes an object into memory, hashed here: `git_odb_write` would hash it with libgit2's
    /// collision-detecting SHA-1 and ask every backend whether it already holds it twice
    /// (refreshing the object database in between); an object written twice is harmless, the
    /// pack holds only what the commits add.
    func write(_ bytes: UnsafeRawBufferPointer, type: git_object_t) throws(GitError) -> ObjectID {
        let id = ObjectID.hash(of: bytes, type: type)
        var oid = id.raw
        guard let write = memory.pointee.write else {
            throw GitError(function: "git_odb_write", rawCode: -1, errorClass: 0, message: "the batch's memory takes no writes")
        }
        try check("git_odb_write") { write(memory, &oid, bytes.baseAddress, bytes.count, type) }
        return id
    }

    /// Runs `body` with an object this batch wrote, read from memory directly, past the object
    /// database's cache (which would hold a second copy of every tree of the segment); false
    /// when the batch did not write it.
    func read(_ id: ObjectID, _ body: (ObjectKind, UnsafeRawBufferPointer) throws(GitError) -> Void) throws(GitError) -> Bool {
        guard let read = memory.pointee.read else { return false }
        var oid = id.raw
        var data: UnsafeMutableRawPointer?, size = 0, type = GIT_OBJECT_INVALID
        guard read(&data, &size, &type, memory, &oid) == 0 else {
            git_error_clear()
            return false
        }
        defer { git_odb_backend_data_free(memory, data) }
        guard let kind = ObjectKind(type) else {
            throw GitError(function: "git_odb_read", rawCode: -1, errorClass: 0, message: "object \(id.hex) has no storable type")
        }
        try body(kind, UnsafeRawBufferPointer(start: data, count: size))
        return true
    }
}
