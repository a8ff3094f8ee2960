import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// Each kind of bad data gives its typed error, and the store stays usable afterwards.
@Suite("Bad input")
struct BadInputTests {
    /// Commits a hand-made blob on `fork` with the git CLI, stamped with `modelVersion`.
    private func commitByHand(_ store: Store<Doc>, fork: String, content: String, modelVersion: Int?) async throws -> String {
        let parent = try await git("--git-dir", store.path, "rev-parse", "refs/heads/\(fork)").stdout.trimmed
        let blob = try await git("--git-dir", store.path, "hash-object", "-w", "--stdin", input: content).stdout.trimmed
        let tree = try await git("--git-dir", store.path, "mktree", input: "100644 blob \(blob)\tvalue.json\n").stdout.trimmed
        var message = "Hand-made\n\nFormat-Version: 1\n"
        if let modelVersion { message += "Model-Version: \(modelVersion)\n" }
        let commit = try await git("--git-dir", store.path, "commit-tree", tree, "-p", parent, "-m", message).stdout.trimmed
        try await git("--git-dir", store.path, "update-ref", "refs/heads/\(fork)", commit)
        return commit
    }

    private func storeWithAFork() throws -> (TemporaryFolder, Store<Doc>, Fork) {
        let (folder, store) = try makeStore(Doc.self)
        try store.save(Doc(title: "good"))
        let bad = try Fork("bad")
        try store.createFork(bad)
        return (folder, store, bad)
    }

    /// The rest of the store still works after an error on fork `bad`.
    private func expectStillUsable(_ store: Store<Doc>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.value() == Doc(title: "good"), sourceLocation: sourceLocation)
        try store.save(Doc(title: "still writable", count: 1))
        #expect(try store.value() == Doc(title: "still writable", count: 1), sourceLocation: sourceLocation)
        #expect(try store.forks().count == 2, sourceLocation: sourceLocation)
    }

    @Test func anUnknownModelVersionIsRefusedNamingBothVersions() async throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        let commit = try await commitByHand(store, fork: "bad", content: #"{"title":"future","count":1}"#, modelVersion: 999)
        let id = try #require(CommitID(commit))
        #expect(throws: StoreError.unknownModelVersion(found: 999, known: 1, commit: id)) { try store.value(in: bad) }
        // Merging it, or writing on top of it, is refused the same way: nothing is overwritten.
        #expect(throws: StoreError.unknownModelVersion(found: 999, known: 1, commit: id)) { try store.mergeIntoMain(from: bad) }
        #expect(throws: StoreError.unknownModelVersion(found: 999, known: 1, commit: id)) {
            try store.save(Doc(title: "overwrite"), to: bad)
        }
        #expect(try await store.head(of: bad).id == id)
        // A build that knows version 2 still refuses 999; the message names both versions.
        let error = StoreError.unknownModelVersion(found: 999, known: 1, commit: id)
        #expect(error.description.contains("999") && error.description.contains("1"))
        try expectStillUsable(store)
        // An app with a newer model reads older data.
        let newer = try await Store<DocV2>.open(at: store.path)
        #expect(try await newer.value() == DocV2(title: "still writable", count: 1))
    }

    @Test func aCommitWithoutAModelVersionIsRefused() async throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        let commit = try await commitByHand(store, fork: "bad", content: #"{"title":"x","count":1}"#, modelVersion: nil)
        #expect(throws: StoreError.missingModelVersion(commit: try #require(CommitID(commit)))) { try store.value(in: bad) }
        try expectStillUsable(store)
    }

    @Test func aBlobThatIsNotJSONIsRefused() async throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        _ = try await commitByHand(store, fork: "bad", content: #"{"title": "unterminated"#, modelVersion: 1)
        #expect {
            try store.value(in: bad)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .invalidJSON, let reason = error.reason else { return false }
            return error.path == "value.json" && !reason.isEmpty
        }
        try expectStillUsable(store)
    }

    @Test func aKeyGivenTwiceIsRefused() async throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        _ = try await commitByHand(store, fork: "bad", content: #"{"title": "a", "title": "b", "count": 1}"#, modelVersion: 1)
        #expect {
            try store.value(in: bad)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .invalidJSON, let reason = error.reason else { return false }
            return reason.contains("duplicate key")
        }
        try expectStillUsable(store)
    }

    @Test func valueJSONOfTheWrongShapeIsRefused() async throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        _ = try await commitByHand(store, fork: "bad", content: #"{"title": 12}"#, modelVersion: 1)
        #expect {
            try store.value(in: bad)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .undecodableValue, let reason = error.reason else { return false }
            return reason.contains("title")
        }
        try expectStillUsable(store)
    }

    @Test func aMalformedValueIsRepairedBySavingOrRemoving() async throws {
        for content in [#"{"title": "unterminated"#, #"{"title": 12}"#, "[1, 2]"] {
            let (folder, store, bad) = try storeWithAFork()
            _ = folder
            _ = try await commitByHand(store, fork: "bad", content: content, modelVersion: 1)
            #expect(throws: StoreError.self) { try store.value(in: bad) }
            #expect(throws: StoreError.self) { try store.update(bad) { $0?.count += 1 } }
            // A save replaces the value without reading it, so it repairs the fork.
            try await store.save(Doc(title: "repaired"), to: bad)
            #expect(try await store.value(in: bad) == Doc(title: "repaired"))
            _ = try await commitByHand(store, fork: "bad", content: content, modelVersion: 1)
            try await store.remove(from: bad)
            #expect(try await store.value(in: bad) == nil)
            try expectStillUsable(store)
        }
    }

    @Test func anObjectDeletedFromTheDatabaseIsReported() async throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        try await store.save(Doc(title: "lost soon"), to: bad)
        let blob = try await git("--git-dir", store.path, "rev-parse", "bad:value.json").stdout.trimmed
        let objectPath = store.path + "/objects/" + blob.prefix(2) + "/" + blob.dropFirst(2)
        try FileManager.default.removeItem(atPath: objectPath)
        #expect {
            try store.value(in: bad)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .missingObject else { return false }
            return error.object == blob
        }
        try expectStillUsable(store)
    }

    @Test func aDeletedCommitIsReported() throws {
        let (folder, store, bad) = try storeWithAFork()
        _ = folder
        let commit = try store.save(Doc(title: "lost soon"), to: bad)
        let objectPath = store.path + "/objects/" + commit.id.hex.prefix(2) + "/" + commit.id.hex.dropFirst(2)
        try FileManager.default.removeItem(atPath: objectPath)
        // A fresh process sees the damage (a live store may still hold the commit in its cache).
        let reopened = try Store<Doc>.open(at: store.path)
        #expect {
            try reopened.value(in: bad)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .missingObject else { return false }
            return error.object == commit.id.hex
        }
        try expectStillUsable(reopened)
    }
}
