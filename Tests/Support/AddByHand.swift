import Foundation

/// Adds files to main's tree with git's plumbing and commits them by hand, stamped with model
/// version 1: what a writer that ignores ForkStore's rules could leave in a store.
public func addByHand(_ files: [String: String], to store: String) async throws {
    let index = store + "/hand-index"
    let environment = ["GIT_INDEX_FILE": index]
    func output(_ result: ProcessResult) -> String { result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    try await git(["--git-dir", store, "read-tree", "main"], environment: environment)
    for (path, content) in files {
        let blob = output(try await git("--git-dir", store, "hash-object", "-w", "--stdin", input: content))
        try await git(["--git-dir", store, "update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)"], environment: environment)
    }
    let tree = output(try await git(["--git-dir", store, "write-tree"], environment: environment))
    try FileManager.default.removeItem(atPath: index)
    let commit = output(try await git("--git-dir", store, "commit-tree", tree, "-p", "main", "-m", "By hand\n\nModel-Version: 1\nFormat-Version: 1\n"))
    try await git("--git-dir", store, "update-ref", "refs/heads/main", commit)
}
