import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// A store shared with participants: commits signed in git's own format, and an exchange that
/// takes in only what a participant who may write signed.
@Suite("Sharing with verified participants")
struct SharingTests {
    private func makeKey(_ name: String, in folder: TemporaryFolder) async throws -> (key: SigningKey, line: String) {
        let made = try await TestKey(name, in: folder)
        return (made.key, made.line)
    }

    private func options(_ key: SigningKey?) -> StoreOptions { signing(key) }

    @Test func aSignedCommitVerifiesWithStockGit() async throws {
        let folder = TemporaryFolder()
        let (key, line) = try await makeKey("owner", in: folder)
        #expect(try ParticipantKey(line) == key.publicKey)
        let store = try await RecordStore<Task2>.create(at: folder.child("store"), options: options(key))
        let commit = try await store.save(Task2(id: "a", title: "signed"))
        let allowed = folder.child("allowed_signers")
        try "forkstore@localhost \(line)\n".write(toFile: allowed, atomically: true, encoding: .utf8)
        let verified = try await git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "--git-dir", store.path, "verify-commit", commit.id.hex)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("Good \"git\" signature"))
        // The root commit is signed too, and a tampered allowed list makes git refuse.
        let root = try await #require(try store.history().last)
        #expect(try await git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "--git-dir", store.path, "verify-commit", root.id.hex).status == 0)
        let (_, other) = try await makeKey("other", in: folder)
        try "forkstore@localhost \(other)\n".write(toFile: allowed, atomically: true, encoding: .utf8)
        #expect(try await git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "--git-dir", store.path, "verify-commit", commit.id.hex).status != 0)
        #expect(try await git("--git-dir", store.path, "fsck", "--strict").status == 0)
    }

    @Test func onlyParticipantsWhoMayWriteChangeASharedStore() async throws {
        let lab = try await SyncLab()
        var keys: [(key: SigningKey, line: String)] = []
        for name in ["owner", "writer", "reader", "stranger"] { keys.append(try await makeKey(name, in: lab.folder)) }
        let (owner, writer, reader, stranger) = (keys[0], keys[1], keys[2], keys[3])
        let remote = CraftedRemote(path: lab.remotePath)
        func replica(_ name: String, key: SigningKey?) throws -> (RecordStore<Task2>, Exchange) {
            let store = try RecordStore<Task2>.create(at: lab.folder.child(name), options: options(key))
            return (store, Exchange(store: store, remote: try Remote(lab.remotePath)))
        }

        let (ownerStore, ownerSync) = try replica("owner", key: owner.key)
        try await ownerStore.setParticipants([
            Participant(key: owner.key.publicKey, access: .owner, name: "owner"),
            Participant(key: writer.key.publicKey, access: .write, name: "writer"),
            Participant(key: try ParticipantKey(reader.line), access: .read, name: "reader"),
        ])
        try await ownerStore.save(Task2(id: "first", title: "by the owner"))
        try await ownerSync.sync()

        // A writer's signed commit is taken in.
        let (writerStore, writerSync) = try replica("writer", key: writer.key)
        try await writerSync.sync()
        #expect(try await writerStore.participants().count == 3)
        try await writerStore.save(Task2(id: "w", title: "by the writer"))
        try await writerSync.sync()
        try await ownerSync.sync()
        #expect(try await ownerStore.record("w")?.title == "by the writer")

        /// Someone pushes a commit to the server; the owner's sync must refuse it.
        func expectRefused(_ name: String, key: SigningKey?, because words: String, change: (RecordStore<Task2>) async throws -> Void) async throws {
            let good = try await remote.main()
            let (store, sync) = try replica(name, key: key)
            try await sync.sync()
            try await change(store)
            try await sync.sync()  // the server itself lets anyone with access push
            let before = try await ownerStore.head()
            do {
                try await ownerSync.sync()
                Issue.record("\(name)'s commit was taken in")
            } catch {
                guard let rejected = error.storeError, rejected.code == .rejectedCommit, let rule = rejected.reason else {
                    Issue.record("\(name): \(error)")
                    return
                }
                #expect(rule.contains(words), "\(name): \(rule)")
            }
            #expect(try await ownerStore.head() == before)
            try await remote.setMain(good)  // the server's admin removes it
        }
        try await expectRefused("reader", key: reader.key, because: "may only read") { try $0.save(Task2(id: "r", title: "x")) }
        try await expectRefused("stranger", key: stranger.key, because: "not a participant") { try $0.save(Task2(id: "s", title: "x")) }
        try await expectRefused("unsigned", key: nil, because: "not signed") { try $0.save(Task2(id: "u", title: "x")) }
        try await expectRefused("promoting", key: writer.key, because: "only an owner") { store in
            try store.setParticipants(store.participants().map { Participant(key: $0.key, access: .owner, name: $0.name) })
        }
        try await ownerSync.sync()

        // The owner removes the writer; from then on the writer's commits are refused.
        try await ownerStore.setParticipants([
            Participant(key: owner.key.publicKey, access: .owner, name: "owner"),
            Participant(key: try ParticipantKey(reader.line), access: .read, name: "reader"),
        ])
        try await ownerSync.sync()
        try await writerSync.sync()
        #expect(try await writerStore.participants().count == 2)
        try await writerStore.save(Task2(id: "late", title: "after removal"))
        try await writerSync.sync()
        await #expect(throws: ExchangeError.self) { try await ownerSync.sync() }
        #expect(try await ownerStore.record("late") == nil)
        #expect(try await git("--git-dir", ownerStore.path, "fsck", "--strict").status == 0)
    }
}
