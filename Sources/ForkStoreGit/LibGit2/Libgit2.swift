internal import CLibGit2
import ForkStoreLocks

/// Process-wide libgit2 set-up, done once before the first repository is opened.
package enum Libgit2 {
    private static let initialized: Result<Void, GitError> = Result { () throws(GitError) in
        try check("git_libgit2_init") { git_libgit2_init() }
        // Trees are read on every lookup by path; libgit2 caches only small ones by default.
        try check("git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT)") {
            forkstore_git_set_cache_object_limit(GIT_OBJECT_TREE, 1 << 20)
        }
        try check("git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT)") {
            forkstore_git_set_cache_object_limit(GIT_OBJECT_COMMIT, 1 << 16)
        }
        // libgit2's cache is process-wide and may grow to 256 MB by default; a large record
        // store touches tens of thousands of small trees (an import of 100,000 records filled
        // 64 MB with trees it never read again), so keep it to 16 MB. The budget counts raw
        // sizes, but a parsed commit costs about three times its raw size: a first sync of
        // 100,000 commits (trees read past the cache) peaked at 297 MB with 32 MB, 207 MB
        // with 16, 183 MB with 8.
        try check("git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE)") { forkstore_git_set_cache_max_size(16 << 20) }
        // Pack files are read through mapped windows (1 GB each, up to 8 GB, by default): a full
        // listing of a large store kept every page of its packs resident (36 MB at 100,000
        // records). 1 MB windows under an 8 MB budget keep memory bounded; libgit2 unmaps the
        // least recently used, and reads stay sequential within a pack.
        try check("git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE)") { forkstore_git_set_mwindow_size(1 << 20) }
        try check("git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT)") { forkstore_git_set_mwindow_mapped_limit(8 << 20) }
    }

    /// Initializes libgit2 if that has not happened yet. Cheap after the first call.
    package static func ensureInitialized() throws(GitError) {
        try initialized.get()
    }

    /// Turns on fsync of objects, refs and packs written by libgit2 in this process.
    ///
    /// libgit2 keeps this as a global setting: once any store asks for it, every repository
    /// in the process fsyncs.
    package static func enableFsync() throws(GitError) {
        try ensureInitialized()
        try check("git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR)") { forkstore_git_enable_fsync_gitdir(1) }
        fsyncEnabled.withLock { $0 = true }
    }

    /// Whether ``enableFsync()`` was called: the packs ForkStoreGit writes itself fsync too.
    static var isFsyncEnabled: Bool { fsyncEnabled.withLock { $0 } }
    private static let fsyncEnabled = Locked(false)

    /// The linked libgit2's version, for diagnostics.
    package static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
