@testable import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// Checkpoints and compaction (Schema/FORMAT.md §16), read back by the git command line.
@Suite("Checkpoints")
struct CheckpointTests {
    /// A record store with `edits` one-record edits on main and a merge from another fork in
    /// its first-parent history.
    private func makeNotes(edits: Int = 12) async throws -> (TemporaryFolder, RecordStore<Film>) {
        let folder = TemporaryFolder()
        let films = try await RecordStore<Film>.create(at: folder.child("films"))
        let side = try Fork("side")
        for index in 0..<edits {
            try await films.save(Film(id: "f\(index % 5)", title: "Take \(index)", year: 1900 + index))
            if index == 3 {
                try await films.createFork(side)
                try await films.save(Film(id: "side", title: "From the side", year: 2000), to: side)
            }
            if index == 6 { try await films.mergeIntoMain(from: side) }
        }
        return (folder, films)
    }

    private func compact(_ films: RecordStore<Film>, _ fork: Fork, at horizon: CommitID) async throws -> Compaction? {
        try await onOwnThread { try films.engine.checkpoint(fork, at: horizon) }
    }

    private func lines(_ arguments: String...) async throws -> [String] {
        let result = try await git(arguments)
        #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func compactionKeepsEveryRecordTreeAndTrailerAndGitReadsIt() async throws {
        let (folder, films) = try await makeNotes()
        _ = folder
        let before = try await films.records().sorted { $0.id < $1.id }
        let oldLog = try await films.history()
        let horizon = oldLog[5]
        let compaction = try #require(try await compact(films, .main, at: horizon.id))
        #expect(compaction.replayed == 5)
        #expect(compaction.oldHead == oldLog[0].id)

        // git reads the new lineage: K is a root commit with C's tree and a Checkpoint-Of trailer.
        try await expectFsckClean(films.path)
        let shape = try await lines("--git-dir", films.path, "log", "--format=%H %P|%T", "main")
        #expect(shape.count == 6)
        #expect(shape.last == "\(compaction.checkpoint.hex) |\(horizon.tree.hex)")
        let named = try await lines("--git-dir", films.path, "log", "-1", "--format=%(trailers:key=Checkpoint-Of,valueonly)", compaction.checkpoint.hex)
        #expect(named == [horizon.id.hex])
        let parsed = try await git("--git-dir", films.path, "cat-file", "commit", compaction.checkpoint.hex)
        let interpreted = try await git(["interpret-trailers", "--parse"], input: String(parsed.stdout.split(separator: "\n\n", maxSplits: 1)[1]))
        #expect(interpreted.stdout.contains("Checkpoint-Of: \(horizon.id.hex)\n"))
        #expect(interpreted.stdout.contains("Record-Count: \(horizon.trailer("Record-Count") ?? "?")\n"))

        // The replayed commits keep trees, messages with their trailers, author and committer.
        let format = "--format=%T|%an <%ae> %at|%cn <%ce> %ct|%B%x00"
        let old = try await git("--git-dir", films.path, "log", "--first-parent", "-5", format, compaction.oldHead.hex).stdout
        let new = try await git("--git-dir", films.path, "log", "-5", format, compaction.newHead.hex).stdout
        #expect(!old.isEmpty && old == new)
        // K is authored and committed as C was committed.
        let people = try await lines("--git-dir", films.path, "log", "-1", "--format=%an <%ae> %at|%cn <%ce> %ct", compaction.checkpoint.hex)
        let horizonCommitter = try await lines("--git-dir", films.path, "log", "-1", "--format=%cn <%ce> %ct", horizon.id.hex)
        #expect(people == ["\(horizonCommitter[0])|\(horizonCommitter[0])"])

        // The archive ref keeps the old head, so C and every old commit stay reachable.
        let archive = try await lines("--git-dir", films.path, "rev-parse", "refs/forkstore/archive/\(compaction.checkpoint.hex)")
        #expect(archive == [compaction.oldHead.hex])

        // The store reads every record the same, after reopening too.
        #expect(try await films.records().sorted { $0.id < $1.id } == before)
        let reopened = try await RecordStore<Film>.open(at: films.path)
        #expect(try await reopened.records().sorted { $0.id < $1.id } == before)
        let newLog = try await reopened.history()
        #expect(newLog.map(\.trailers).dropLast() == oldLog.prefix(5).map(\.trailers)[...])
        #expect(newLog.last?.checkpointOf == horizon.id)
        #expect(newLog.last?.parents == [])
        #expect(newLog.dropLast().allSatisfy { $0.checkpointOf == nil && $0.parents.count == 1 })
        #expect(try await reopened.count() == before.count)
        try await reopened.save(Film(id: "after", title: "After the horizon", year: 2026))
        #expect(try await reopened.count() == before.count + 1)
    }

    @Test func twoUnsignedReplicasCheckpointingTheSameCommitWriteTheSameObject() async throws {
        let (folder, films) = try await makeNotes()
        let copy = folder.child("copy")
        try FileManager.default.copyItem(atPath: films.path, toPath: copy)
        let other = try await RecordStore<Film>.open(at: copy)
        let horizon = try await films.history()[4].id
        let one = try #require(try await compact(films, .main, at: horizon))
        let two = try #require(try await compact(other, .main, at: horizon))
        #expect(one.checkpoint == two.checkpoint)
        #expect(one.newHead == two.newHead)
    }

    @Test func aHorizonOffTheForkOrAtTheRootChangesNothing() async throws {
        let (folder, films) = try await makeNotes()
        _ = folder
        let head = try await films.head()
        let sideOnly = try await films.history(of: try Fork("side"))[0].id
        let refused = await #expect(throws: StoreError.self) { try await compact(films, .main, at: sideOnly) }
        #expect(refused?.code == .compactionRefused)
        let root = try #require(try await films.history().last)
        #expect(try await compact(films, .main, at: root.id) == nil)
        #expect(try await films.head() == head)
        let archives = try await git("--git-dir", films.path, "for-each-ref", "refs/forkstore/archive")
        #expect(archives.stdout.isEmpty)
    }

    @Test func aHorizonAtTheHeadLeavesTheCheckpointAsTheHead() async throws {
        let (folder, films) = try await makeNotes()
        _ = folder
        let head = try await films.head()
        let before = try await films.records()
        let compaction = try #require(try await compact(films, .main, at: head.id))
        #expect(compaction.replayed == 0)
        #expect(compaction.newHead == compaction.checkpoint)
        #expect(try await films.head().id == compaction.checkpoint)
        #expect(try await films.history().count == 1)
        #expect(try await films.records() == before)
        try await expectFsckClean(films.path)
    }

    @Test func compactingTwiceKeepsTheFirstCheckpointUnderItsArchive() async throws {
        let (folder, films) = try await makeNotes()
        _ = folder
        let first = try #require(try await compact(films, .main, at: try await films.history()[6].id))
        try await films.save(Film(id: "later", title: "Later", year: 2030))
        let second = try #require(try await compact(films, .main, at: try await films.history()[2].id))
        #expect(try await films.history().count == 3)
        // The second horizon is on the first checkpoint's lineage; both archives hold.
        let refs = try await lines("--git-dir", films.path, "for-each-ref", "--format=%(refname)", "refs/forkstore/archive")
        #expect(Set(refs) == [first.archiveReference, second.archiveReference])
        // The second names the first as the lineage it was cut from; the first names none.
        let trailers = try await lines("--git-dir", films.path, "log", "-1", "--format=%(trailers:key=Checkpoint-After,valueonly)", second.checkpoint.hex)
        #expect(trailers.first == first.checkpoint.hex)
        #expect(try await lines("--git-dir", films.path, "log", "-1", "--format=%(trailers:key=Checkpoint-After)", first.checkpoint.hex).allSatisfy(\.isEmpty))
        try await expectFsckClean(films.path)
        #expect(try await films.record("later")?.year == 2030)
    }

    @Test(arguments: [
        ("Checkpoint-Of: %C\nCheckpoint-Of: %C\n", "root"),
        ("Checkpoint-Of: %U\n", "root"),
        ("Checkpoint-Of: %S\n", "root"),
        ("Checkpoint-Of: %C\n", "child"),
        ("Checkpoint-Of: %C\nCheckpoint-After: %C\nCheckpoint-After: %C\n", "root"),
        ("Checkpoint-Of: %C\nCheckpoint-After: %U\n", "root"),
        ("Checkpoint-After: %C\n", "root"),
    ])
    func aCheckpointTrailerNotInItsOneFormIsMalformed(_ trailers: String, _ shape: String) async throws {
        let (folder, films) = try await makeNotes(edits: 2)
        _ = folder
        let head = try await films.head()
        let tree = try await lines("--git-dir", films.path, "rev-parse", "main^{tree}")[0]
        let text = trailers.replacingOccurrences(of: "%C", with: head.id.hex)
            .replacingOccurrences(of: "%U", with: head.id.hex.uppercased())
            .replacingOccurrences(of: "%S", with: head.id.short)
        let message = "By hand\n\nModel-Version: 1\nFormat-Version: 1\nRecord-Count: 2\n\(text)"
        let parents = shape == "child" ? ["-p", "main"] : []
        let commit = try await git(["--git-dir", films.path, "commit-tree", tree] + parents + ["-m", message]).stdout.trimmed
        _ = try await git("--git-dir", films.path, "update-ref", "refs/heads/main", commit)
        let refused = await #expect(throws: StoreError.self) { try await films.records() }
        #expect(refused?.code == .malformedCommit, "\(String(describing: refused))")
    }

    @Test func aWellFormedHandMadeCheckpointReads() async throws {
        let (folder, films) = try await makeNotes(edits: 2)
        _ = folder
        let head = try await films.head()
        let tree = try await lines("--git-dir", films.path, "rev-parse", "main^{tree}")[0]
        let message = "By hand\n\nModel-Version: 1\nFormat-Version: 1\nRecord-Count: 2\nCheckpoint-Of: \(head.id.hex)\n"
        let commit = try await git(["--git-dir", films.path, "commit-tree", tree, "-m", message]).stdout.trimmed
        _ = try await git("--git-dir", films.path, "update-ref", "refs/heads/main", commit)
        #expect(try await films.count() == 2)
        #expect(try await films.head().checkpointOf == head.id)
    }
}
