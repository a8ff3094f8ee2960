#ifndef FORKSTORE_CLIBGIT2_SHIM_H
#define FORKSTORE_CLIBGIT2_SHIM_H

#include <git2.h>
#include <git2/sys/repository.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/stream.h>
#include <zlib.h>

// git_libgit2_opts is variadic, which Swift does not import: one wrapper per option we use.

static inline int forkstore_git_enable_fsync_gitdir(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}

static inline int forkstore_git_set_cache_object_limit(git_object_t type, size_t size) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, type, size);
}

static inline int forkstore_git_set_cache_max_size(ssize_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, bytes);
}

static inline int forkstore_git_set_mwindow_size(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, bytes);
}

static inline int forkstore_git_set_mwindow_mapped_limit(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, bytes);
}

// The socket stream ForkStoreGit registers with libgit2 (SocketStream.swift). Its first
// members are laid out as libgit2's own socket stream (`git_socket_stream`: the stream, host,
// port, socket), because libgit2's ssh transport reaches into a stream for its socket, which
// it hands to libssh2.
typedef struct forkstore_socket_stream {
    git_stream parent;
    char *host;
    char *port;
    int descriptor;
    int connect_timeout_ms;
    int io_timeout_ms;
} forkstore_socket_stream;

#endif
