import CLibGit2
import ForkStoreGit

/// The baseline for finding a history's root: libgit2 looks each commit up whole and hands
/// its first parent, as the library did before it read packed headers.
func rootThroughCommitLookups(of head: ObjectID, in path: String) throws -> ObjectID {
    var repository: OpaquePointer?
    guard git_repository_open_bare(&repository, path) == 0 else { throw LookupFailure(path: path) }
    defer { git_repository_free(repository) }
    var current = git_oid()
    current.id = head.bytes
    while true {
        var commit: OpaquePointer?
        guard git_commit_lookup(&commit, repository, &current) == 0 else { throw LookupFailure(path: path) }
        defer { git_commit_free(commit) }
        guard git_commit_parentcount(commit) > 0, let parent = git_commit_parent_id(commit, 0) else { return ObjectID(bytes: current.id) }
        current = parent.pointee
    }
}

struct LookupFailure: Error {
    let path: String
}
