import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// The participants in force at every commit, merges included (FORMAT.md §9): a merge holds
/// what the participants merge rule gives from its parents and their base unless an owner
/// signed otherwise, a removal stays removed, and honest owners changing the participants on
/// two replicas at once end with the rule's list on both.
@Suite("Participants through merges")
struct ParticipantsThroughMergesTests {
    private func expectClean(_ paths: String...) async throws {
        for path in paths {
            let fsck = try await git("--git-dir", path, "fsck", "--strict")
            #expect(fsck.status == 0, "\(path): \(fsck.stderr)")
        }
    }

    /// A writer's signed merge whose second parent is the store's first commit (which holds no
    /// participants) cannot un-share the store; the same merge keeping the participants is taken.
    @Test func aMergeWithTheFirstCommitCannotUnshareTheStore() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await owner.save(Task2(id: "a", title: "shared"))
        try await ownerSync.sync()

        let head = try await lab.remoteGit("rev-parse", "main")
        let first = try await lab.remoteGit("rev-list", "--max-parents=0", "main")
        for tree in await [try lab.tree("\(head)^{tree}", withParticipants: nil), try lab.remoteGit("rev-parse", "\(first)^{tree}")] {
            try await lab.remoteGit("update-ref", "refs/heads/main", try lab.craftSignedCommit(tree: tree, parents: [head, first], key: carol))
            await expectSharingRefusal(ownerSync, saying: "only an owner")
            #expect(try await owner.participants().count == 2)
        }
        // A stranger's unsigned commit on top of the first commit stays refused too.
        let stranger = try await lab.remoteGit(["commit-tree", "\(first)^{tree}", "-p", first, "-m", "Stranger\n\nModel-Version: 1\nFormat-Version: 1\n"])
        try await lab.remoteGit("update-ref", "refs/heads/main", stranger)
        await expectSharingRefusal(ownerSync, saying: "not signed")

        // The writer's merge that keeps the participants is an ordinary merge.
        let kept = try await lab.craftSignedCommit(tree: "\(head)^{tree}", parents: [head, first], key: carol)
        try await lab.remoteGit("update-ref", "refs/heads/main", kept)
        try await ownerSync.sync()
        #expect(try await owner.head().id.hex == kept)
        #expect(try await owner.participants().count == 2)
        try await expectClean(owner.path, lab.remotePath)
    }

    /// A first commit that names its own participants, or a merge of three histories that
    /// hold different participants, cannot change who shares the store.
    @Test func aFirstCommitOrAThreeWayJoinBringsNoParticipants() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await owner.save(Task2(id: "a", title: "shared"))
        try await ownerSync.sync()
        let head = try await lab.remoteGit("rev-parse", "main")
        let first = try await lab.remoteGit("rev-list", "--max-parents=0", "main")

        let own = #"{"participants":[{"access":"owner","key":"\#(carol.key.publicKey)","name":"carol"}]}"#
        let blob = try await lab.remoteGit(["hash-object", "-w", "--stdin"], input: String(decoding: try CanonicalJSON.canonicalize(Array(own.utf8)), as: UTF8.self))
        let root = try await lab.craftSignedCommit(tree: try lab.tree("\(head)^{tree}", withParticipants: blob), parents: [], key: carol)
        try await lab.remoteGit("update-ref", "refs/heads/main", root)
        await expectSharingRefusal(ownerSync, saying: "only an owner")

        let joined = try await lab.craftSignedCommit(tree: "\(head)^{tree}", parents: [head, first, "\(head)~1"], key: carol)
        try await lab.remoteGit("update-ref", "refs/heads/main", joined)
        await expectSharingRefusal(ownerSync, saying: "more than two histories")
        #expect(try await owner.participants().count == 2)
        try await expectClean(owner.path)
    }

    /// A writer cannot bring back a removed participant by merging the commit before the
    /// removal; the removed participant's own commits on that old history stay refused.
    @Test func aWriterCannotReadmitARemovedParticipantThroughAMerge() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let dave = try await TestKey("dave", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol"), dave.participant(.write, "dave")])
        try await owner.save(Task2(id: "a", title: "shared"))
        let before = try await owner.head().id.hex
        try await owner.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await ownerSync.sync()
        let removal = try await lab.remoteGit("rev-parse", "main")
        let oldList = try await lab.remoteGit("rev-parse", "\(before):participants.json")

        let readmitting = try await lab.craftSignedCommit(
            tree: try lab.tree("\(removal)^{tree}", withParticipants: oldList), parents: [removal, before], key: carol)
        try await lab.remoteGit("update-ref", "refs/heads/main", readmitting)
        await expectSharingRefusal(ownerSync, saying: "only an owner")
        // Parents the other way round: the same.
        let swapped = try await lab.craftSignedCommit(
            tree: try lab.tree("\(removal)^{tree}", withParticipants: oldList), parents: [before, removal], key: carol)
        try await lab.remoteGit("update-ref", "refs/heads/main", swapped)
        await expectSharingRefusal(ownerSync, saying: "only an owner")
        // Dave's own commit on the history before his removal, pushed over the server's main.
        let stale = try await lab.craftSignedCommit(tree: "\(before)^{tree}", parents: [before], key: dave)
        try await lab.remoteGit("update-ref", "refs/heads/main", stale)
        await expectSharingRefusal(ownerSync, saying: "not a participant")
        #expect(try await owner.participants().map(\.name) == ["alice", "carol"])
        try await expectClean(owner.path)
    }

    /// Bob removes alice, an owner, while she is offline. Her later commits (made on the
    /// history that holds her removal, once her replica has merged it) are refused everywhere,
    /// also by a replica that has not seen the removal yet.
    @Test func anOwnerRemovedWhileOfflineWritesNothingAfterTheRemoval() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), bob = try await TestKey("bob", in: lab.folder)
        let carol = try await TestKey("carol", in: lab.folder)
        let (a, aSync) = try lab.signedReplica("alice", key: alice)
        try await a.setParticipants([alice.participant(.owner, "alice"), bob.participant(.owner, "bob"), carol.participant(.write, "carol")])
        try await a.save(Task2(id: "x", title: "shared"))
        try await aSync.sync()
        let (b, bSync) = try lab.signedReplica("bob", key: bob)
        let (c, cSync) = try lab.signedReplica("carol", key: carol)
        try await bSync.sync()
        try await cSync.sync()

        try await b.setParticipants([bob.participant(.owner, "bob"), carol.participant(.write, "carol")])
        try await bSync.sync()
        try await a.save(Task2(id: "offline", title: "written before alice knew"))
        try await aSync.sync()  // alice's replica merges her removal and pushes its merge
        #expect(try await a.participants().map(\.name) == ["bob", "carol"])
        try await a.save(Task2(id: "late", title: "after the removal"))
        try await aSync.sync()

        let carolBefore = try await c.head()
        await expectSharingRefusal(cSync, saying: "not a participant")
        #expect(try await c.head() == carolBefore)
        await expectSharingRefusal(bSync, saying: "not a participant")
        #expect(try await b.record("late") == nil)
        try await expectClean(a.path, b.path, c.path, lab.remotePath)
    }

    /// Two owners change the participants on two replicas at once: both merges are taken and
    /// both replicas end with the rule's list (additions from both sides; where both changed
    /// one participant, the entry granting less). A participant added on one side who writes
    /// at once is taken by a replica that has not merged the addition yet.
    @Test func concurrentOwnerChangesMergeByTheRule() async throws {
        let lab = try await SyncLab()
        var keys: [TestKey] = []
        for name in ["alice", "bob", "carol", "dave", "erin"] { keys.append(try await TestKey(name, in: lab.folder)) }
        let (alice, bob, carol, dave, erin) = (keys[0], keys[1], keys[2], keys[3], keys[4])
        let (a, aSync) = try lab.signedReplica("alice", key: alice)
        try await a.setParticipants([alice.participant(.owner, "alice"), bob.participant(.owner, "bob"), carol.participant(.write, "carol")])
        try await a.save(Task2(id: "x", title: "shared"))
        try await aSync.sync()
        let (b, bSync) = try lab.signedReplica("bob", key: bob)
        let (c, cSync) = try lab.signedReplica("carol", key: carol)
        try await bSync.sync()
        try await cSync.sync()

        try await a.setParticipants([
            alice.participant(.owner, "alice"), bob.participant(.owner, "bob"), carol.participant(.owner, "carol"),
            dave.participant(.write, "dave"),
        ])
        try await b.setParticipants([
            alice.participant(.owner, "alice"), bob.participant(.owner, "bob"), carol.participant(.read, "carol"),
            erin.participant(.write, "erin"),
        ])
        try await aSync.sync()
        try await bSync.sync()  // bob merges alice's change
        try await aSync.sync()  // alice takes bob's merge
        let expected: Set<Participant> = [
            alice.participant(.owner, "alice"), bob.participant(.owner, "bob"), carol.participant(.read, "carol"),
            dave.participant(.write, "dave"), erin.participant(.write, "erin"),
        ]
        #expect(Set(try await a.participants()) == expected)
        #expect(Set(try await b.participants()) == expected)
        #expect(try await a.head() == b.head())
        #expect(try await b.head().trailer("Merge-Conflict") == "/participants.json (least-access)")

        // Dave writes at once; carol, who has merged none of it, takes all of it.
        let (d, dSync) = try lab.signedReplica("dave", key: dave)
        try await dSync.sync()
        try await d.save(Task2(id: "d", title: "by dave"))
        try await dSync.sync()
        try await cSync.sync()
        #expect(try await c.record("d")?.title == "by dave")
        #expect(Set(try await c.participants()) == expected)
        try await expectClean(a.path, b.path, c.path, d.path, lab.remotePath)
    }

    /// A writer added on the owner's other replica pushes 1,000 signed commits; the owner's
    /// laptop, which has neither the addition nor the commits and whose own participants
    /// changed meanwhile, takes them in two fetches (so every commit is checked against both
    /// lists). The check costs the same for each commit however long the history.
    @Test func aThousandSignedCommitsAreCheckedInBoundedTime() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let readers = try await [TestKey("erin", in: lab.folder), TestKey("frank", in: lab.folder)]
        let (laptop, laptopSync) = try lab.signedReplica("laptop", key: alice)
        try await laptop.setParticipants([alice.participant(.owner, "alice")])
        try await laptopSync.sync()
        let (phone, phoneSync) = try lab.signedReplica("phone", key: alice)
        try await phoneSync.sync()
        try await phone.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        try await phoneSync.sync()
        let (c, cSync) = try lab.signedReplica("carol", key: carol)
        try await cSync.sync()
        for round in 0..<2 {
            for index in 0..<500 { try await c.save(Task2(id: "r\(round)-\(index)", title: "commit \(index)")) }
            try await cSync.sync()
            try await laptop.setParticipants(try laptop.participants() + [readers[round].participant(.read, "reader-\(round)")])
            let took = try await ContinuousClock().measure { try await laptopSync.sync() }
            print("synced 500 signed commits (history \(500 * (round + 1))) in \(took)")
            // About 2 s on an idle machine (the participants check ~0.35 s of it, the same in
            // both rounds), 3-5 s beside four builds. The bound is for a check that grows with
            // history (one walk per commit would take minutes), with room for a busy machine.
            #expect(took < .seconds(60))
        }
        #expect(try await laptop.count() == 1000)
        #expect(try await laptop.participants().map(\.name) == ["alice", "reader-0", "carol", "reader-1"])  // the first parent's order, then additions
        try await expectClean(laptop.path, lab.remotePath)
    }

    /// Another store's history, though signed by this store's owner, brings none of its
    /// participants: a shared store refuses a history that does not grow from `main`'s first
    /// commit, as a head of its own or merged into this store's history by a stranger.
    @Test func anotherStoresHistorySignedByTheOwnerIsRefused() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), mallory = try await TestKey("mallory", in: lab.folder)
        let (owner, ownerSync) = try lab.signedReplica("alice", key: alice)
        try await owner.setParticipants([alice.participant(.owner, "alice")])
        try await owner.save(Task2(id: "private", title: "alice only"))
        try await ownerSync.sync()
        let head = try await lab.remoteGit("rev-parse", "main")

        let other = try await RecordStore<Task2>.create(at: lab.folder.child("other"), options: signing(alice.key))
        try await other.setParticipants([alice.participant(.owner, "alice"), mallory.participant(.owner, "mallory")])
        try await other.save(Task2(id: "other", title: "from store 2"))
        let otherHead = try await other.head().id.hex
        try await lab.remoteGit("fetch", "-q", other.path, "+refs/heads/main:refs/heads/graft")

        try await lab.remoteGit("update-ref", "refs/heads/main", otherHead)
        await expectSharingRefusal(ownerSync, saying: "history of its own")
        #expect(try await owner.participants().map(\.name) == ["alice"])
        let joined = try await lab.craftSignedCommit(tree: "\(head)^{tree}", parents: [head, otherHead], key: mallory)
        try await lab.remoteGit("update-ref", "refs/heads/main", joined)
        await expectSharingRefusal(ownerSync, saying: "history of its own")
        #expect(try await owner.participants().map(\.name) == ["alice"])
        #expect(try await owner.record("other") == nil)
        try await expectClean(owner.path)
    }

    /// With several merge bases the rule holds against each: a removed writer's merge of two
    /// old commits whose best common ancestors with `main` are both of them (one before her
    /// addition, one after) does not bring her back, whichever base ranks first.
    @Test func aMergeOfTwoOldCommitsWithTwoBasesCannotReadmitARemovedWriter() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (laptop, laptopSync) = try lab.signedReplica("laptop", key: alice)
        try await laptop.setParticipants([alice.participant(.owner, "alice")])
        try await laptop.save(Task2(id: "x", title: "shared"))
        try await laptopSync.sync()
        let (phone, phoneSync) = try lab.signedReplica("phone", key: alice)
        try await phoneSync.sync()

        try await laptop.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")])
        let added = try await laptop.head().id.hex
        try await laptopSync.sync()
        try await Task.sleep(for: .milliseconds(20))  // the phone's write ranks above the addition
        try await phone.save(Task2(id: "g", title: "phone, offline"))
        let offline = try await phone.head().id.hex
        try await phoneSync.sync()  // the phone merges the addition
        try await laptopSync.sync()
        try await laptop.setParticipants([alice.participant(.owner, "alice")])  // carol removed
        try await laptop.save(Task2(id: "y", title: "after removal"))
        try await laptopSync.sync()
        let main = try await lab.remoteGit("rev-parse", "main")
        let phoneMerge = try await lab.remoteGit("rev-parse", "\(main)~2")
        #expect(Set(try await lab.remoteGit("rev-list", "--parents", "-n1", phoneMerge).split(separator: " ").dropFirst().map(String.init)) == [offline, added])

        let crafted = try await lab.craftSignedCommit(tree: "\(phoneMerge)^{tree}", parents: [added, offline], key: carol)
        #expect(Set(try await lab.remoteGit("merge-base", "--all", main, crafted).split(separator: "\n").map(String.init)) == [offline, added])
        try await lab.remoteGit("update-ref", "refs/heads/main", crafted)
        await expectSharingRefusal(laptopSync, saying: "not a participant")
        #expect(try await laptop.participants().map(\.name) == ["alice"])
        try await expectClean(laptop.path)
    }

    /// An owner's removal on one side of a criss-cross stays removed when merged with the other
    /// side's merge, though the base that ranks first (the later write) never held the removed
    /// writer; a peer takes the merge as written.
    @Test func aRemovalStaysRemovedThroughACrissCross() async throws {
        let lab = try await SyncLab()
        let alice = try await TestKey("alice", in: lab.folder), carol = try await TestKey("carol", in: lab.folder)
        let (laptop, laptopSync) = try lab.signedReplica("laptop", key: alice)
        try await laptop.setParticipants([alice.participant(.owner, "alice")])
        try await laptop.save(Task2(id: "x", title: "shared"))
        try await laptopSync.sync()
        let (peer, peerSync) = try lab.signedReplica("peer", key: alice)
        try await peerSync.sync()

        let phone = try Fork("phone"), added = try Fork("added")
        try await laptop.createFork(phone, from: .main)
        try await laptop.createFork(added, at: laptop.setParticipants([alice.participant(.owner, "alice"), carol.participant(.write, "carol")]).id)
        try await Task.sleep(for: .milliseconds(20))  // the phone's write ranks above the addition
        try await laptop.save(Task2(id: "g", title: "on the phone"), to: phone)
        try await laptop.merge(from: phone, into: .main)
        try await laptop.merge(from: added, into: phone)
        try await laptop.setParticipants([alice.participant(.owner, "alice")])  // carol removed
        try await laptop.merge(from: phone, into: .main)  // merge bases: the addition and the phone's write
        #expect(try await laptop.participants().map(\.name) == ["alice"])

        try await laptopSync.sync()
        try await peerSync.sync()
        #expect(try await peer.head() == laptop.head())
        #expect(try await peer.participants().map(\.name) == ["alice"])
        try await expectClean(laptop.path, peer.path, lab.remotePath)
    }
}
