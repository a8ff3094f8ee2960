internal import CLibGit2

extension Repository {
    /// Runs `body` with a second handle on this repository whose new objects are kept in memory,
    /// then writes them all as one pack with its index (durable before this returns), so a
    /// commit of thousands of objects costs two files instead of thousands. Nothing `body`
    /// writes is visible to other handles until it returns; a crash before then leaves nothing
    /// behind. Move a reference to what `body` wrote only after this returns.
    package func withObjectsInOnePack<Result>(_ body: (Repository) throws -> Result) throws -> Result {
        let batch = try Repository.openBare(at: gitDirectory)
        var backend: UnsafeMutablePointer<git_odb_backend>?
        try check("git_mempack_new") { git_mempack_new(&backend) }
        guard let backend else {
            throw GitError(function: "git_mempack_new", rawCode: -1, errorClass: 0, message: "no backend was returned")
        }
        do {
            try check("git_odb_add_backend") { git_odb_add_backend(batch.odb, backend, 1000) }
        } catch {
            backend.pointee.free?(backend)
            throw error
        }
        // The odb owns the backend now, and frees it with the batch handle.
        let result = try body(batch)
        var pack = git_buf()
        defer { git_buf_dispose(&pack) }
        try check("git_mempack_dump") { git_mempack_dump(&pack, batch.pointer, backend) }
        try index(pack: UnsafeRawBufferPointer(start: pack.ptr, count: pack.size))
        try check("git_mempack_reset") { git_mempack_reset(backend) }
        try refreshObjects()
        return result
    }

    /// Writes a complete pack's bytes into `objects/pack` with its index.
    private func index(pack bytes: UnsafeRawBufferPointer) throws(GitError) {
        // An empty pack is a 12-byte header and a 20-byte checksum: nothing to write.
        guard bytes.count > 32 else { return }
        var options = git_indexer_options()
        try check("git_indexer_options_init") { git_indexer_options_init(&options, UInt32(GIT_INDEXER_OPTIONS_VERSION)) }
        var indexer: OpaquePointer?
        try check("git_indexer_new") { git_indexer_new(&indexer, gitDirectory + "objects/pack", 0, odb, &options) }
        defer { git_indexer_free(indexer) }
        var stats = git_indexer_progress()
        try check("git_indexer_append") { git_indexer_append(indexer, bytes.baseAddress, bytes.count, &stats) }
        try check("git_indexer_commit") { git_indexer_commit(indexer, &stats) }
    }
}
