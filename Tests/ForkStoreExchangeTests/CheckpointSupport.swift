import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Checkpoints written with git's own plumbing, as FORMAT.md §16 specifies them: what any
/// writer (or a hostile remote) can produce, independent of the library's compaction.
enum Checkpoints {
    /// The stamp trailers of commit `id` in the repository at `gitDirectory`, as the commit has them.
    static func stampTrailers(of id: String, in gitDirectory: String) async throws -> [String] {
        let body = try await git("--git-dir", gitDirectory, "show", "-s", "--format=%B", id).stdout
        let keys = ["Model-Version", "Format-Version", "Lamport", "Clock", "Replica", "Record-Count"]
        let lines = body.split(separator: "\n").map(String.init)
        return keys.compactMap { key in lines.first { $0.hasPrefix(key + ": ") } }
    }

    /// Writes a checkpoint of `horizon` (default: `main`'s head) into the repository at
    /// `gitDirectory`: its tree (or `tree`), the horizon's committer as author and committer,
    /// `Checkpoint of <C>` with its stamp trailers and `Checkpoint-Of` (or `checkpointOf`, to
    /// forge one), and `Checkpoint-After` when `after` is given. Signed with `key` when given.
    /// Returns its id.
    static func write(
        in gitDirectory: String, of horizon: String = "main", tree: String? = nil, checkpointOf: String? = nil, after: String? = nil,
        key: TestKey? = nil
    ) async throws -> String {
        let c = try await git("--git-dir", gitDirectory, "rev-parse", horizon).stdout.trimmed
        let committer = try await git("--git-dir", gitDirectory, "show", "-s", "--format=%cn%n%ce%n%cd", "--date=raw", c)
            .stdout.split(separator: "\n").map(String.init)
        let treeID: String
        if let tree { treeID = tree } else { treeID = try await git("--git-dir", gitDirectory, "rev-parse", c + "^{tree}").stdout.trimmed }
        var message = "Checkpoint of \(c)\n\n"
        message += try await stampTrailers(of: c, in: gitDirectory).map { $0 + "\n" }.joined()
        message += "Checkpoint-Of: \(checkpointOf ?? c)\n"
        if let after { message += "Checkpoint-After: \(after)\n" }
        let environment = [
            "GIT_AUTHOR_NAME": committer[0], "GIT_AUTHOR_EMAIL": committer[1], "GIT_AUTHOR_DATE": committer[2],
            "GIT_COMMITTER_NAME": committer[0], "GIT_COMMITTER_EMAIL": committer[1], "GIT_COMMITTER_DATE": committer[2],
        ]
        var arguments = ["--git-dir", gitDirectory]
        if let key { arguments += ["-c", "gpg.format=ssh", "-c", "user.signingKey=\(key.file)"] }
        arguments += ["commit-tree"] + (key == nil ? [] : ["-S"]) + [treeID, "-F", "-"]
        let made = try await git(arguments, environment: environment, input: message)
        #expect(made.status == 0, "\(made.stderr)")
        return made.stdout.trimmed
    }

    /// Compacts a store's `main` at its head, as the core's compaction does with nothing to
    /// replay: writes the checkpoint, keeps the old head under the archive ref, moves `main`.
    @discardableResult
    static func compact(storeAt gitDirectory: String, key: TestKey? = nil) async throws -> String {
        let old = try await git("--git-dir", gitDirectory, "rev-parse", "main").stdout.trimmed
        let checkpoint = try await write(in: gitDirectory, key: key)
        #expect(try await git("--git-dir", gitDirectory, "update-ref", "refs/forkstore/archive/\(checkpoint)", old).status == 0)
        #expect(try await git("--git-dir", gitDirectory, "update-ref", "refs/heads/main", checkpoint, old).status == 0)
        return checkpoint
    }

    /// The root of `main`'s first-parent chain in the repository at `gitDirectory`.
    static func root(in gitDirectory: String, of reference: String = "main") async throws -> String {
        let roots = try await git("--git-dir", gitDirectory, "rev-list", "--first-parent", "--max-parents=0", reference).stdout
        return roots.trimmed
    }

    /// The record ids `main` holds in the repository at `gitDirectory`, read by git.
    static func recordIDs(in gitDirectory: String) async throws -> Set<String> {
        let listed = try await git("--git-dir", gitDirectory, "ls-tree", "-r", "--name-only", "main", "records").stdout
        var ids = Set<String>()
        for path in listed.split(separator: "\n") {
            let shown = try await git("--git-dir", gitDirectory, "show", "main:\(path)").stdout
            if let object = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any], let id = object["id"] as? String {
                ids.insert(id)
            }
        }
        return ids
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
