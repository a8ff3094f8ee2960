import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A commit's signature is read as git reads it: from the header's one `gpgsig` field. libgit2
/// 1.5 also found a `gpgsig` block moved into the message, so a copy of an owner's signed
/// commit under a new id verified (found in review; FORMAT.md section 9).
@Suite("Signatures read as git reads them")
struct SignatureStrictnessTests {
    /// The twin of the owner's "add dave" commit, branching off before the addition, would
    /// bring dave back after his removal, with no key at all.
    @Test func aTwinWithTheSignatureMovedIntoTheMessageIsUnsigned() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let dave = try await TestKey("dave", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await owner.save(Task2(id: "a", title: "shared"))
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol"), dave.participant(.write, "dave")])
        let addition = try await owner.head().id.hex
        try await owner.save(Task2(id: "b", title: "more"))
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await ownerSync.sync()
        #expect(try await owner.participants().map(\.name) == ["alice", "carol"])

        // The stranger: no key, only the server.
        let raw = try await git("--git-dir", lab.remotePath, "cat-file", "commit", addition).stdout
        let split = try #require(raw.range(of: "\n\n"))
        let header = raw[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        let message = raw[split.upperBound...]
        var kept: [Substring] = [], signature: [Substring] = []
        var inSignature = false
        for line in header {
            if line.hasPrefix("gpgsig ") || (inSignature && line.hasPrefix(" ")) {
                inSignature = true
                signature.append(line)
            } else {
                inSignature = false
                kept.append(line)
            }
        }
        #expect(!signature.isEmpty)
        let twin = kept.joined(separator: "\n") + "\n\n" + signature.joined(separator: "\n") + "\n" + message
        let twinID = try await git(["--git-dir", lab.remotePath, "hash-object", "-t", "commit", "-w", "--literally", "--stdin"], input: twin)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(twinID != addition)
        try await lab.remoteGit("update-ref", "refs/heads/main", twinID)

        // Git reads the twin as unsigned, and so does the exchange: the sync refuses it.
        #expect(try await git("--git-dir", lab.remotePath, "verify-commit", twinID).status != 0)
        let head = try await owner.head()
        do {
            try await ownerSync.sync()
            Issue.record("the twin of a signed commit was taken")
        } catch {
            guard let rejected = error.storeError, rejected.code == .rejectedCommit, let rule = rejected.reason else {
                Issue.record("refused for another reason: \(error)")
                return
            }
            #expect(rule.contains("not signed"), "\(rule)")
        }
        #expect(try await owner.head() == head)
        #expect(try await owner.participants().map(\.name) == ["alice", "carol"])
    }
}
