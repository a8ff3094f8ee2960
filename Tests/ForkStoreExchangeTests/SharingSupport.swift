import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A fresh Ed25519 key pair made by `ssh-keygen`: the signing key, its public line, and the
/// private key file (for git's own `commit -S` with `gpg.format=ssh`).
struct TestKey {
    let key: SigningKey
    let line: String
    let file: String

    init(_ name: String, in folder: TemporaryFolder) async throws {
        file = folder.child("key-\(name)")
        let made = try await run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", file])
        #expect(made.status == 0, "\(made.stderr)")
        line = try String(contentsOfFile: file + ".pub", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        key = try SigningKey(contentsOfFile: file)
    }

    func participant(_ access: Participant.Access, _ name: String) -> Participant {
        Participant(key: key.publicKey, access: access, name: name)
    }
}

/// Store options that sign every commit with `key`.
func signing(_ key: SigningKey?) -> StoreOptions {
    var options = StoreOptions()
    options.signingKey = key
    return options
}

extension SyncLab {
    /// A record store signing with `key`, syncing with the lab's remote.
    func signedReplica(_ name: String, key: TestKey?) throws -> (RecordStore<Task2>, Exchange) {
        let store = try RecordStore<Task2>.create(at: folder.child(name), options: signing(key?.key))
        return (store, Exchange(store: store, remote: try Remote(remotePath)))
    }

    /// A commit written straight into the remote with git's plumbing, signed by `key` in
    /// git's own ssh format: what a participant who crafts commits by hand can push.
    func craftSignedCommit(tree: String, parents: [String], key: TestKey, subject: String = "Crafted") async throws -> String {
        let message = "\(subject)\n\nModel-Version: 1\nFormat-Version: 1\n"
        let made = try await git(
            ["--git-dir", remotePath, "-c", "gpg.format=ssh", "-c", "user.signingKey=\(key.file)", "commit-tree", "-S", tree]
                + parents.flatMap { ["-p", $0] } + ["-m", message])
        #expect(made.status == 0, "\(made.stderr)")
        return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `tree` (of the remote) with its `participants.json` replaced by `blob`, or removed.
    func tree(_ tree: String, withParticipants blob: String?) async throws -> String {
        let listed = try await remoteGit("ls-tree", tree).split(separator: "\n").filter { !$0.hasSuffix("\tparticipants.json") }
        let entries = listed.map { "\($0)\n" }.joined() + (blob.map { "100644 blob \($0)\tparticipants.json\n" } ?? "")
        return try await remoteGit(["mktree"], input: entries)
    }

    /// `json` written into the remote in canonical form (section 4), so only the participants
    /// rules can refuse it; returns the blob's id.
    func canonicalBlob(_ json: String) async throws -> String {
        let canonical = String(decoding: try CanonicalJSON.canonicalize(Array(json.utf8)), as: UTF8.self)
        return try await remoteGit(["hash-object", "-w", "--stdin"], input: canonical)
    }

    /// Runs git on the remote and returns its trimmed output.
    @discardableResult
    func remoteGit(_ arguments: String...) async throws -> String { try await remoteGit(arguments) }

    @discardableResult
    func remoteGit(_ arguments: [String], input: String? = nil) async throws -> String {
        let result = try await git(["--git-dir", remotePath] + arguments, input: input)
        #expect(result.status == 0, "git \(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs a sync that must be refused for a commit breaking the sharing rules; returns the rule.
@discardableResult
func expectSharingRefusal(
    _ exchange: Exchange, saying words: String, sourceLocation: SourceLocation = #_sourceLocation
) async -> String? {
    do {
        try await exchange.sync()
        Issue.record("the sync took in a commit it must refuse", sourceLocation: sourceLocation)
    } catch {
        guard let rejected = error.storeError, rejected.code == .rejectedCommit, let rule = rejected.reason else {
            Issue.record("expected a refused commit, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(rule.contains(words), "\(rule)", sourceLocation: sourceLocation)
        return rule
    }
    return nil
}
