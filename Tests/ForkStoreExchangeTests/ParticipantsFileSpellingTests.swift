import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// An incoming `participants.json` must be exactly how a writer writes its list (FORMAT.md §9):
/// other bytes that decode to the same list were taken as no change at all, so a writer could
/// rewrite the file (found in review: a key with a comment, a field no one writes).
@Suite("Participants files spelled one way")
struct ParticipantsFileSpellingTests {
    /// Each spelling, as canonical JSON (so only the participants rule can refuse it), with
    /// words the refusal must say. Every one decodes, or nearly, to the list in force.
    private static func spellings(alice: TestKey, carol: TestKey) -> [(json: String, saying: String)] {
        let a = alice.key.publicKey.description, c = carol.key.publicKey.description
        let aliceEntry = #"{"access":"owner","key":"\#(a)","name":"alice"}"#
        func file(carol entry: String, extra: String = "") -> String {
            #"{\#(extra)"participants":[\#(aliceEntry),\#(entry)]}"#
        }
        return [
            (file(carol: #"{"access":"write","key":"\#(c) carol@laptop","name":"carol"}"#), "no comment"),
            (file(carol: #"{"access":"write","key":"\#(c)\n","name":"carol"}"#), "no comment"),
            (file(carol: #"{"access":"write","key":"\#(c.replacingOccurrences(of: " ", with: "  "))","name":"carol"}"#), "one space"),
            (file(carol: #"{"access":"write","key":"\#(c.replacingOccurrences(of: " ", with: "\\t"))","name":"carol"}"#), "one space"),
            (file(carol: #"{"access":"write","key":" \#(c)","name":"carol"}"#), "one space"),
            (file(carol: #"{"access":"write","key":"\#(c)","name":"carol"}"#, extra: #""note":"hi","#), "field 'note'"),
            (file(carol: #"{"access":"write","expires":"2030","key":"\#(c)","name":"carol"}"#), "field 'expires'"),
            (#"{"participants":[\#(aliceEntry),{"access":"write","key":"\#(c)","name":null}]}"#, "null name"),
            (file(carol: #"{"access":"Write","key":"\#(c)","name":"carol"}"#), "access"),
            (file(carol: #"{"access":"write","key":"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ","name":"carol"}"#), "ssh-ed25519"),
            (file(carol: #"{"access":"write","key":"\#(c)","name":"carol"},{"access":"write","key":"\#(c)","name":"carol"}"#), "twice"),
            (#"{"participants":[]}"#, "names no one"),
            (#"{"participants":{}}"#, "no 'participants' list"),
        ]
    }

    /// A writer rewrites the file in place of the owner's, in each spelling; every one is
    /// refused with its rule, and the owner's replica keeps the list it had.
    @Test func everyOtherSpellingOfTheListIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        let list = [alice.participant(.owner, "alice"), carol.participant(.write, "carol")]
        try await owner.setParticipants(list)
        try await owner.save(Task2(id: "a", title: "shared"))
        try await ownerSync.sync()
        let head = try await lab.remoteGit("rev-parse", "main")

        for (json, words) in Self.spellings(alice: alice, carol: carol) {
            let blob = try await lab.canonicalBlob(json)
            for signer in [carol, alice] {
                let commit = try await lab.craftSignedCommit(
                    tree: try lab.tree("\(head)^{tree}", withParticipants: blob), parents: [head], key: signer)
                try await lab.remoteGit("update-ref", "refs/heads/main", commit)
                let rule = await expectSharingRefusal(ownerSync, saying: words)
                #expect(rule != nil, "\(json) signed by \(signer.line) was taken")
            }
            #expect(try await owner.participants() == list)
        }
        // Spellings that are not canonical JSON at all: refused as JSON before they are read.
        let a = alice.key.publicKey.description, c = carol.key.publicKey.description
        for raw in [
            #"{"participants":[{"access":"owner","access":"owner","key":"\#(a)","name":"alice"},{"access":"write","key":"\#(c)","name":"carol"}]}"#,
            #"{ "participants": [{"access":"owner","key":"\#(a)","name":"alice"},{"access":"write","key":"\#(c)","name":"carol"}] }"#,
            #"{"participants":[{"key":"\#(a)","access":"owner","name":"alice"},{"access":"write","key":"\#(c)","name":"carol"}]}"#,
        ] {
            let blob = try await lab.remoteGit(["hash-object", "-w", "--stdin"], input: raw)
            let commit = try await lab.craftSignedCommit(tree: try lab.tree("\(head)^{tree}", withParticipants: blob), parents: [head], key: carol)
            try await lab.remoteGit("update-ref", "refs/heads/main", commit)
            await expectSharingRefusal(ownerSync, saying: "JSON")
        }
        try await lab.remoteGit("update-ref", "refs/heads/main", head)
        try await ownerSync.sync()
        try await #require(try git("--git-dir", owner.path, "fsck", "--strict").status == 0)
    }

    /// The refusal names the file and the rule, like other malformed files.
    @Test func theRefusalNamesTheFileAndTheRule() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        try await owner.setParticipants([alice.participant(.owner, "alice")])
        try await ownerSync.sync()
        let head = try await lab.remoteGit("rev-parse", "main")
        let commented = #"{"participants":[{"access":"owner","key":"\#(alice.line)","name":"alice"}]}"#
        let blob = try await lab.canonicalBlob(commented)
        let commit = try await lab.craftSignedCommit(tree: try lab.tree("\(head)^{tree}", withParticipants: blob), parents: [head], key: alice)
        try await lab.remoteGit("update-ref", "refs/heads/main", commit)
        do {
            try await ownerSync.sync()
            Issue.record("a key with a comment was taken")
        } catch {
            guard let rejected = error.storeError, rejected.code == .rejectedCommit, let refused = rejected.commit,
                let path = rejected.path, let rule = rejected.reason
            else {
                Issue.record("refused for another reason: \(error)")
                return
            }
            #expect(refused.hex == commit)
            #expect(path == "participants.json")
            #expect(rule.contains("participant 0"), "\(rule)")
        }
    }
}
