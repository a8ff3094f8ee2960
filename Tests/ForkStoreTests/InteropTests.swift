import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// The git command line as an independent reader and writer of stores.
@Suite("Interoperability with the git command line")
struct InteropTests {
    @Test func gitReadsWhatWeWrite() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "Fork Yeah", count: 3), message: "First words")
        let ui = try Fork("ui")
        try await store.createFork(ui)
        try await store.save(Doc(title: "from ui", count: 4), to: ui)
        try await store.save(Doc(title: "from main", count: 5))
        try await store.mergeIntoMain(from: ui)
        try await expectFsckClean(store.path)

        let log = try await git("--git-dir", store.path, "log", "--format=%B%x00", "main")
        #expect(log.status == 0)
        #expect(log.stdout.contains("Model-Version: 1"))
        #expect(log.stdout.contains("Format-Version: 1"))
        #expect(log.stdout.contains("Merged-Fork: ui"))
        let trailers = try await git("--git-dir", store.path, "log", "-1", "--format=%(trailers:key=Lamport,valueonly)", "main")
        #expect(Int(trailers.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == (try await store.head()).lamport)

        let shown = try await git("--git-dir", store.path, "show", "main:value.json")
        #expect(shown.status == 0)
        let decoded = try JSONDecoder().decode(Doc.self, from: Data(shown.stdout.utf8))
        #expect(decoded == (try await store.value()))
        // Canonical: exactly the bytes the canonical writer produces.
        #expect(Array(shown.stdout.utf8) == CanonicalJSON.serialize(try CanonicalJSON.parse(Array(shown.stdout.utf8))))
        // HEAD names main, so git sees no unborn branch.
        let head = try await git("--git-dir", store.path, "symbolic-ref", "HEAD")
        #expect(head.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "refs/heads/main")
    }

    @Test func identicalValuesGiveIdenticalBlobs() async throws {
        let folder = TemporaryFolder()
        let one = try await Store<Tally>.create(at: folder.child("one"))
        let two = try await Store<Tally>.create(at: folder.child("two"))
        try await one.save(Tally(["z", "a", "m", "ü", "10", "9"]))
        try await two.save(Tally(["9", "ü", "m", "z", "a", "10"]))
        let blobOne = try await git("--git-dir", one.path, "rev-parse", "main:value.json").stdout
        let blobTwo = try await git("--git-dir", two.path, "rev-parse", "main:value.json").stdout
        #expect(blobOne == blobTwo)
    }

    @Test func textIsStoredExactlyWithoutNormalization() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let decomposed = "Cafe\u{301} \u{1F600} \"quoted\" \\ tab\t nul\u{0} /slash"
        try store.save(Doc(title: decomposed))
        let read = try #require(try Store<Doc>.open(at: store.path).value())
        #expect(Array(read.title.unicodeScalars) == Array(decomposed.unicodeScalars))
    }

    @Test func aCommitMadeWithGitIsReadCorrectly() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "before"))
        let head = try await store.head()
        let blob = try await git(
            "--git-dir", store.path, "hash-object", "-w", "--stdin", input: #"{"count":7,"title":"by git"}"#)
        let tree = try await git(
            "--git-dir", store.path, "mktree", input: "100644 blob \(blob.stdout.trimmed)\tvalue.json\n")
        let message = "Edited by hand\n\nModel-Version: 1\nFormat-Version: 1\nLamport: \(head.lamport + 1)\n"
        let commit = try await git(
            "--git-dir", store.path, "commit-tree", tree.stdout.trimmed, "-p", head.id.hex, "-m", message)
        #expect(commit.status == 0, "\(commit.stderr)")
        try await git("--git-dir", store.path, "update-ref", "refs/heads/main", commit.stdout.trimmed, head.id.hex)

        #expect(try await store.value() == Doc(title: "by git", count: 7))
        let read = try await store.head()
        #expect(read.subject == "Edited by hand")
        #expect(read.modelVersion == 1 && read.lamport == head.lamport + 1)
        // And the library keeps writing on top of it.
        try await store.update { $0?.count += 1 }
        #expect(try await store.value() == Doc(title: "by git", count: 8))
        try await expectFsckClean(store.path)
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
