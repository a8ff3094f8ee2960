import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// git's `*.lock` files on a store's refs: a live holder is waited for, then reported; only a
/// lock a killed writer of ours left, or one untouched for ten minutes that no process has
/// open, is removed (FORMAT.md §11).
@Suite("git's lock files")
struct GitLockFileTests {
    @Test func aRefARunningGitCommandHoldsIsWaitedForThenReportedAsLocked() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        let first = try store.add("first").id.description
        let second = try store.add("second").id.description
        // git moves main back to the first commit, and holds main.lock between its prepare and
        // its commit, with the file closed, as git always holds its lock files.
        let transaction = try await onOwnThread {
            try HeldGitTransaction(gitDirectory: store.path, update: "refs/heads/main \(first) \(second)")
        }
        let lock = store.path + "/refs/heads/main.lock"
        #expect(FileManager.default.fileExists(atPath: lock))
        let started = Date()
        let outcome = try await onOwnThread { () -> StoreError? in
            do {
                try store.add("during")
                return nil
            } catch let error as StoreError {
                return error
            }
        }
        let waited = Date().timeIntervalSince(started)
        guard let outcome, outcome.code == .locked, let path = outcome.path else {
            Issue.record("the write did not report the lock: \(String(describing: outcome))")
            return
        }
        #expect(path.hasSuffix("refs/heads/main.lock") && outcome.description.contains(path))
        #expect(waited >= 4.5, "waited \(waited) s")
        #expect(FileManager.default.fileExists(atPath: lock), "the store removed a lock a live git held")

        let printed = try await onOwnThread { try transaction.commit() }
        #expect(printed.contains("commit: ok"), "\(printed)")
        #expect(try await git("--git-dir", store.path, "rev-parse", "main").stdout.hasPrefix(first))
        try store.add("after")
        #expect(try store.items() == ["first", "after"])
        try await expectFsckClean(store.path)
    }

    @Test func onlyALockFileUntouchedForTenMinutesIsStale() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("before")
        let lock = store.path + "/refs/heads/main.lock"
        #expect(FileManager.default.createFile(atPath: lock, contents: Data()))
        // Nine minutes old and open in no process: a holder may still be at work.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-540)], ofItemAtPath: lock)
        let young = try await onOwnThread { () -> StoreError? in
            do {
                try store.add("refused")
                return nil
            } catch let error as StoreError {
                return error
            }
        }
        #expect(young.flatMap(Self.lockedPath)?.hasSuffix("refs/heads/main.lock") == true, "\(String(describing: young))")
        #expect(FileManager.default.fileExists(atPath: lock))
        // Eleven minutes: stale.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-660)], ofItemAtPath: lock)
        try store.add("after")
        #expect(!FileManager.default.fileExists(atPath: lock))
        #expect(try store.items() == ["before", "after"])
        try await expectFsckClean(store.path)
    }

    @Test func aLockFileAKilledWriterLeftIsRemovedAndGitRespectsItMeanwhile() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        let head = try store.add("before").id.description
        // What a writer killed between locking main and renaming the lock leaves: its note of
        // the move in forkstore.flock, and main.lock holding the new id.
        let target = String(repeating: "ab", count: 20)
        try Self.writeInPlace("refs/heads/main \(target)\n", to: store.path + "/forkstore.flock")
        let lock = store.path + "/refs/heads/main.lock"
        #expect(FileManager.default.createFile(atPath: lock, contents: Data("\(target)\n".utf8)))
        // git honours the lock as its own.
        let refused = try await git("--git-dir", store.path, "update-ref", "refs/heads/main", head)
        #expect(refused.status != 0 && refused.stderr.contains("main.lock"))

        let reopened = try await Store<Tally>.open(at: store.path)
        try reopened.add("after")
        #expect(!FileManager.default.fileExists(atPath: lock))
        #expect(try reopened.items() == ["before", "after"])
        #expect(try String(contentsOfFile: store.path + "/forkstore.flock", encoding: .utf8).isEmpty)
        #expect(try await git("--git-dir", store.path, "update-ref", "refs/heads/side", head).status == 0)
        try await expectFsckClean(store.path)
    }

    @Test func aLockFileTheKilledWritersNoteDoesNotExplainStays() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("before")
        // The note names main, but main.lock holds another id: someone else's lock.
        try Self.writeInPlace("refs/heads/main \(String(repeating: "ab", count: 20))\n", to: store.path + "/forkstore.flock")
        let lock = store.path + "/refs/heads/main.lock"
        #expect(FileManager.default.createFile(atPath: lock, contents: Data("\(String(repeating: "cd", count: 20))\n".utf8)))
        let outcome = try await onOwnThread { () -> StoreError? in
            do {
                try Store<Tally>.open(at: store.path).add("refused")
                return nil
            } catch let error as StoreError {
                return error
            }
        }
        #expect(outcome.flatMap(Self.lockedPath)?.hasSuffix("refs/heads/main.lock") == true, "\(String(describing: outcome))")
        #expect(FileManager.default.fileExists(atPath: lock))
        #expect(try store.items() == ["before"])
    }

    /// Writes into the file itself, as a writer does: replacing it would give the stores that
    /// have it open, and lock it, another file than the next process.
    static func writeInPlace(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    static func lockedPath(_ error: StoreError) -> String? {
        error.code == .locked ? error.path : nil
    }
}
