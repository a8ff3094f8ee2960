#ifndef FORKSTORE_CLIBGIT2_SHIM_H
#define FORKSTORE_CLIBGIT2_SHIM_H

#include <git2.h>
#include <git2/sys/repository.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/stream.h>
#include <git2/sys/transport.h>
// libgit2 1.8 moved git_error_clear and git_error_set_str out of git2/errors.h into a header of
// their own (1.5 has no such header).
#if __has_include(<git2/sys/errors.h>)
#include <git2/sys/errors.h>
#endif
#include <stddef.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>

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
//
// `git_socket_stream` is private to libgit2 (src/libgit2/streams/socket.h), so nothing but
// this check keeps the copy honest. Verified for:
// - libgit2 1.5.1: Debian 12's source package (1.5.1+ds), src/libgit2/streams/socket.h is
//   `{ git_stream parent; char *host; char *port; GIT_SOCKET s; }`, GIT_SOCKET is `int` on
//   Unix (src/util/unix/posix.h), and transports/ssh.c takes `socket->s` of
//   `GIT_CONTAINER_OF(io, git_socket_stream, parent)` for libssh2_session_handshake;
// - libgit2 1.8.4: the same four members in libgit2's src/libgit2/streams/socket.h of the
//   1.7/1.8 series (the socket.c beside it fills git_stream's timeout fields, new in 1.7), and
//   transports/ssh_libssh2.c reads `socket->s` the same way;
// - both Debian builds (libgit2.so.1.5.1 of bookworm, libgit2.so.1.8.4 of bookworm-backports):
//   the instruction before their call to libssh2_session_handshake loads the socket from
//   byte 88 (0x58) of the stream (objdump -d), which is where `descriptor` sits (asserted
//   below for x86-64), and the ssh tests sync through this stream on both.
// git_stream itself is public and differs between the two (1.8 packs encrypted/proxy_support
// into bit fields and adds timeout/connect_timeout); `parent` follows the header compiled
// against. Another version: read its socket.h and ssh transport, then add it here.
#if !defined(LIBGIT2_VER_MAJOR) || !defined(LIBGIT2_VER_MINOR)
#error "ForkStore: libgit2's version macros are missing; forkstore_socket_stream is verified against libgit2 1.5 and 1.8 only"
#elif !(LIBGIT2_VER_MAJOR == 1 && (LIBGIT2_VER_MINOR == 5 || LIBGIT2_VER_MINOR == 8))
#error "ForkStore: forkstore_socket_stream copies the layout of libgit2's private git_socket_stream, verified for libgit2 1.5 and 1.8 only; verify this libgit2's src/libgit2/streams/socket.h and its ssh transport, then add the version to the check in Sources/CLibGit2/shim.h"
#endif

typedef struct forkstore_socket_stream {
    git_stream parent;
    char *host;
    char *port;
    int descriptor;
    int connect_timeout_ms;
    int io_timeout_ms;
} forkstore_socket_stream;

_Static_assert(offsetof(forkstore_socket_stream, host) == sizeof(git_stream),
    "forkstore_socket_stream: host must follow the git_stream, as in libgit2's git_socket_stream");
_Static_assert(offsetof(forkstore_socket_stream, descriptor) == sizeof(git_stream) + 2 * sizeof(char *),
    "forkstore_socket_stream: the socket must follow host and port, as in libgit2's git_socket_stream");
#if defined(__x86_64__)
_Static_assert(offsetof(forkstore_socket_stream, descriptor) == 88,
    "forkstore_socket_stream: libgit2 1.5.1 and 1.8.4's ssh transports read the socket at byte 88");
#endif

// Reads an object straight from an object database's backends, for walks that read each tree
// once: git_odb_read keeps every object it reads in the odb's cache (up to the process-wide
// cache size) and hashes it again, which the indexer already did when the pack
// arrived. Returns GIT_ENOTFOUND when no backend has it without a refresh of `objects/pack`
// (the caller then reads through git_odb_read, which refreshes). The data is freed with
// git_odb_backend_data_free on the backend returned.
static inline int forkstore_odb_read_uncached(
    void **data, size_t *length, git_object_t *type, git_odb_backend **from, git_odb *odb, const git_oid *id) {
    size_t count = git_odb_num_backends(odb);
    for (size_t index = 0; index < count; index++) {
        git_odb_backend *backend;
        int error = git_odb_get_backend(&backend, odb, index);
        if (error < 0) return error;
        if (backend->read == NULL) continue;
        error = backend->read(data, length, type, backend, id);
        if (error == 0) {
            *from = backend;
            return 0;
        }
        if (error != GIT_ENOTFOUND && error != GIT_PASSTHROUGH) return error;
    }
    git_error_clear();
    return GIT_ENOTFOUND;
}

// An object database backend that reads a repository's objects and writes nothing: the batch
// handle of Repository+Batching.swift puts it behind a mempack. It reads through a pack backend
// of its own (whose delta-base caches go with it) and then the repository's object database
// (loose objects, alternates), without re-reading `objects/pack` on a miss. It has no `freshen`
// or `refresh`, so writing a new object costs no file-system calls: libgit2's own loose and
// pack backends look on disk for every object they are asked to write, re-reading
// `objects/pack` on each miss.

typedef struct {
    git_odb_backend parent;
    git_odb_backend *packs;
    git_odb *fallback;
} forkstore_reading_backend;

static inline forkstore_reading_backend *forkstore_reading(git_odb_backend *backend) {
    return (forkstore_reading_backend *)backend;
}

static inline int forkstore_reading_read(
    void **data, size_t *length, git_object_t *type, git_odb_backend *backend, const git_oid *id) {
    git_odb_backend *packs = forkstore_reading(backend)->packs;
    int error = packs->read(data, length, type, packs, id);
    if (error != GIT_ENOTFOUND) return error;
    git_odb *fallback = forkstore_reading(backend)->fallback;
    if (!git_odb_exists_ext(fallback, id, GIT_ODB_LOOKUP_NO_REFRESH)) return GIT_ENOTFOUND;
    git_odb_object *object;
    error = git_odb_read(&object, fallback, id);
    if (error < 0) return error;
    *length = git_odb_object_size(object);
    *type = git_odb_object_type(object);
    *data = git_odb_backend_data_alloc(backend, *length);
    if (*data == NULL) {
        git_odb_object_free(object);
        return -1;
    }
    memcpy(*data, git_odb_object_data(object), *length);
    git_odb_object_free(object);
    return 0;
}

static inline int forkstore_reading_read_header(
    size_t *length, git_object_t *type, git_odb_backend *backend, const git_oid *id) {
    git_odb_backend *packs = forkstore_reading(backend)->packs;
    int error = packs->read_header(length, type, packs, id);
    if (error != GIT_ENOTFOUND) return error;
    git_odb *fallback = forkstore_reading(backend)->fallback;
    if (!git_odb_exists_ext(fallback, id, GIT_ODB_LOOKUP_NO_REFRESH)) return GIT_ENOTFOUND;
    return git_odb_read_header(length, type, fallback, id);
}

static inline int forkstore_reading_exists(git_odb_backend *backend, const git_oid *id) {
    git_odb_backend *packs = forkstore_reading(backend)->packs;
    return packs->exists(packs, id) || git_odb_exists_ext(forkstore_reading(backend)->fallback, id, GIT_ODB_LOOKUP_NO_REFRESH);
}

static inline void forkstore_reading_free(git_odb_backend *backend) {
    git_odb_backend *packs = forkstore_reading(backend)->packs;
    packs->free(packs);
    free(backend);
}

static inline int forkstore_reading_backend_new(git_odb_backend **out, const char *objects, git_odb *fallback) {
    forkstore_reading_backend *backend = calloc(1, sizeof(forkstore_reading_backend));
    if (backend == NULL) return -1;
    int error = git_odb_backend_pack(&backend->packs, objects);
    if (error < 0) {
        free(backend);
        return error;
    }
    backend->parent.version = GIT_ODB_BACKEND_VERSION;
    backend->parent.read = forkstore_reading_read;
    backend->parent.read_header = forkstore_reading_read_header;
    backend->parent.exists = forkstore_reading_exists;
    backend->parent.free = forkstore_reading_free;
    backend->fallback = fallback;
    *out = &backend->parent;
    return 0;
}

// An object database backend that writes packs only, each through a check first: every pack a
// fetch receives (libgit2's smart transports hand it to `git_odb_write_pack`) is passed, as it
// arrives, to `check` (ForkStoreGit's Repository+IncomingPacks.swift), and only then to
// libgit2's own indexer, which writes it into `objects/pack`. A check that fails (an object
// larger than allowed, say) fails the fetch before the indexer has taken memory for that
// object. With no check set, it writes nothing: packs never arrive unchecked.

typedef int (*forkstore_pack_check)(void *payload, const void *data, size_t size);

typedef struct {
    git_odb_backend parent;
    git_odb_backend *packs;
    forkstore_pack_check check;
    void *payload;
} forkstore_checking_backend;

typedef struct {
    git_odb_writepack parent;
    git_odb_writepack *indexer;
    forkstore_pack_check check;
    void *payload;
} forkstore_checking_writepack;

static inline int forkstore_checking_append(git_odb_writepack *writepack, const void *data, size_t size, git_indexer_progress *stats) {
    forkstore_checking_writepack *checking = (forkstore_checking_writepack *)writepack;
    int error = checking->check(checking->payload, data, size);
    if (error < 0) return error;
    return checking->indexer->append(checking->indexer, data, size, stats);
}

// The check is told that the pack ended (no data) before the indexer resolves its deltas.
static inline int forkstore_checking_commit(git_odb_writepack *writepack, git_indexer_progress *stats) {
    forkstore_checking_writepack *checking = (forkstore_checking_writepack *)writepack;
    int error = checking->check(checking->payload, NULL, 0);
    if (error < 0) return error;
    return checking->indexer->commit(checking->indexer, stats);
}

static inline void forkstore_checking_writepack_free(git_odb_writepack *writepack) {
    forkstore_checking_writepack *checking = (forkstore_checking_writepack *)writepack;
    checking->indexer->free(checking->indexer);
    free(checking);
}

static inline int forkstore_checking_writepack_new(
    git_odb_writepack **out, git_odb_backend *backend, git_odb *odb, git_indexer_progress_cb progress, void *payload) {
    forkstore_checking_backend *checking = (forkstore_checking_backend *)backend;
    if (checking->check == NULL) {
        git_error_set_str(GIT_ERROR_ODB, "forkstore: a pack arrived outside a checked fetch");
        return -1;
    }
    forkstore_checking_writepack *writepack = calloc(1, sizeof(forkstore_checking_writepack));
    if (writepack == NULL) return -1;
    int error = checking->packs->writepack(&writepack->indexer, checking->packs, odb, progress, payload);
    if (error < 0) {
        free(writepack);
        return error;
    }
    writepack->parent.backend = backend;
    writepack->parent.append = forkstore_checking_append;
    writepack->parent.commit = forkstore_checking_commit;
    writepack->parent.free = forkstore_checking_writepack_free;
    writepack->check = checking->check;
    writepack->payload = checking->payload;
    *out = &writepack->parent;
    return 0;
}

static inline void forkstore_checking_free(git_odb_backend *backend) {
    git_odb_backend *packs = ((forkstore_checking_backend *)backend)->packs;
    packs->free(packs);
    free(backend);
}

static inline int forkstore_checking_backend_new(forkstore_checking_backend **out, const char *objects) {
    forkstore_checking_backend *backend = calloc(1, sizeof(forkstore_checking_backend));
    if (backend == NULL) return -1;
    int error = git_odb_backend_pack(&backend->packs, objects);
    if (error < 0) {
        free(backend);
        return error;
    }
    backend->parent.version = GIT_ODB_BACKEND_VERSION;
    backend->parent.writepack = forkstore_checking_writepack_new;
    backend->parent.free = forkstore_checking_free;
    *out = backend;
    return 0;
}

#endif
