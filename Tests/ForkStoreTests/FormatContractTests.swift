import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// Schema/FORMAT.md as a contract: stock git reads every commit the library writes the way the
/// library does, every other reading is refused, and each value has one stored form.
@Suite("The format as a contract")
struct FormatContractTests {
    /// A record whose merges are last-writer-wins on the whole record.
    struct Card: Resource, Identifiable, Equatable {
        static let modelVersion = 1
        var id: String
        var title: String
    }

    /// The message of a commit exactly as stored, after its header.
    static func rawMessage(_ commit: String, in store: String) async throws -> String {
        let object = try await git("--git-dir", store, "cat-file", "commit", commit).stdout
        guard let header = object.range(of: "\n\n") else { return "" }
        return String(object[header.upperBound...])
    }

    /// The trailers as git's two readers see them, one `Key: value` per line each.
    static func gitTrailers(of commit: String, in store: String) async throws -> (log: [String], parse: [String]) {
        let log = try await git("--git-dir", store, "log", "-1", "--format=%(trailers:only,unfold)", commit).stdout
        let parse = try await git("interpret-trailers", "--parse", input: rawMessage(commit, in: store)).stdout
        func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
        return (lines(log), lines(parse))
    }

    /// Asserts that both git readers see exactly the trailers the library reads.
    static func expectGitAgrees(with commit: Commit, in store: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let ours = commit.trailers.map { "\($0.key): \($0.value)" }
        let (log, parse) = try await gitTrailers(of: commit.id.hex, in: store)
        let message = try await rawMessage(commit.id.hex, in: store).debugDescription
        #expect(log == ours, "git log, message: \(message)", sourceLocation: sourceLocation)
        #expect(parse == ours, "git interpret-trailers, message: \(message)", sourceLocation: sourceLocation)
    }

    static let hostileFreeTexts = [
        "", "   \n\t\n", "y\n---\nnot a patch", "---", "--- ", "----\nfour dashes are not a divider",
        "x\n# ------------------------ >8 ------------------------\ncut", "# a heading\n\nbody",
        "Model-Version: 999", "Subject\n\nModel-Version: 999\nFormat-Version: 9", "Key : value", "a\r\nb\r\n",
        "next line\u{85}separator\u{2028}paragraph\u{2029}end", "tab\there", "Signed-off-by: someone",
        "subject\n \nwhitespace-only separator", "subject\n\n  indented continuation-like", "ends with #",
        "(cherry picked from commit 0123)", "nul\u{0} and escape \u{1B}[31m",
    ]

    @Test func gitReadsTheTrailersOfEveryCommitTheLibraryWrites() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        for (index, text) in Self.hostileFreeTexts.enumerated() {
            let commit = try await store.save(Doc(title: "v\(index)"), message: text)
            #expect(commit.modelVersion == 1 && commit.formatVersion == 1, "\(text.debugDescription)")
            #expect(commit.trailers.map(\.key) == ["Model-Version", "Format-Version", "Lamport", "Clock", "Replica"])
            try await Self.expectGitAgrees(with: commit, in: store.path)
        }
        #expect(try await store.value() == Doc(title: "v\(Self.hostileFreeTexts.count - 1)"))
        #expect(try await store.save(Doc(title: "x"), message: "").message == "(no message)")
        #expect(try await store.save(Doc(title: "y"), message: "y\n---\nnot a patch").message == "y\n ---\nnot a patch")
        // Control characters are Unicode category Cc: U+0085 goes, U+2028 (Zl) stays.
        #expect(try await store.save(Doc(title: "z"), message: "a\u{85}b\u{2028}c\r\n").message == "ab\u{2028}c")
        try await expectFsckClean(store.path)
    }

    /// Commits made by another tool, with the stamp written in ways git reads as trailers.
    @Test(arguments: [
        "Model-Version : 1\nFormat-Version: 1\n",
        "model-version: 1\nFormat-Version:1\n",
        "Model-Version: 1\nFormat-Version: 1\nReplica: 0123456789abcdef\nMerged-Fork: a\n  long value\n",
    ])
    func stampsGitReadsAsTrailersAreRead(_ trailers: String) async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "before"))
        let id = try await commitByHand(store.path, message: "By hand\n \n" + trailers)
        let commit = try await store.commit(#require(CommitID(id)))
        #expect(commit.modelVersion == 1)
        try await Self.expectGitAgrees(with: commit, in: store.path)
        #expect(try await store.value() == Doc(title: "by hand"))
    }

    /// Every other form is refused with a typed error naming the rule, never guessed.
    @Test(arguments: [
        ("By hand\n\nModel-Version: +1\nFormat-Version: 1\n", "Model-Version '+1'"),
        ("By hand\n\nModel-Version: 1\nModel-Version: 3\nFormat-Version: 1\n", "2 Model-Version trailers"),
        ("By hand\n\nModel-Version: 1\nFormat-Version: two\n", "Format-Version 'two'"),
        ("By hand\n\nModel-Version: 1\n", "no Format-Version"),
        ("By hand\n\nModel-Version: 1\nFormat-Version: 1\nLamport: -1\n", "Lamport '-1'"),
        ("By hand\n\nModel-Version: 1\nFormat-Version: 1\nClock: soon\n", "Clock 'soon'"),
        ("By hand\n\nModel-Version: 01\nFormat-Version: 1\n", "Model-Version '01'"),
        ("y\n---\nnot a patch\n\nModel-Version: 1\nFormat-Version: 1\n", "'---'"),
        ("By hand\n\nModel-Version: 1\nFormat-Version: 1\nnot a trailer\n", "mixes trailers"),
        ("By hand\n\nModel-Version: 1\nFormat-Version: 1\n\n# comment\n", "'#'"),
        ("x\n# ------------------------ >8 ------------------------\n\nModel-Version: 1\nFormat-Version: 1\n", "scissors"),
        ("x\n\nFoo: bar\n\u{0B}\nModel-Version: 1\nFormat-Version: 1\n", "mixes trailers"),
        ("x\n\nModel-Version: 1\nFormat-Version: 1\u{0C}\n", "Format-Version '1\u{0C}'"),
        ("x\n\nModel-Version: 1\nFormat-Version: 1\nConflicts:\n\tfile\n", "Conflicts:"),
    ])
    func malformedStampsAndMessagesAreRefused(_ message: String, _ rule: String) async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "before"))
        let id = try await commitByHand(store.path, message: message)
        do {
            _ = try await store.value()
            Issue.record("read a malformed commit")
        } catch let error as StoreError {
            guard error.code == .malformedCommit, let commit = error.commit, let reason = error.reason else {
                Issue.record("expected malformedCommit, got \(error)")
                return
            }
            #expect(commit.hex == id)
            #expect(reason.contains(rule), "\(reason)")
        }
    }

    /// A trailer block that is the message's only paragraph is a title to git: no trailers.
    @Test func aTrailerOnlyMessageHasNoStamp() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "before"))
        _ = try await commitByHand(store.path, message: "Model-Version: 1\nFormat-Version: 1\n")
        #expect(throws: StoreError.self) { try store.value() }
        #expect(try await store.head().trailers.isEmpty)
    }

    /// Points `main` at a commit of the value `{"title": "by hand"}` with this message.
    private func commitByHand(_ store: String, message: String) async throws -> String {
        let parent = try await git("--git-dir", store, "rev-parse", "refs/heads/main").stdout.trimmed
        let blob = try await git("--git-dir", store, "hash-object", "-w", "--stdin", input: "{\n  \"count\": 0,\n  \"title\": \"by hand\"\n}\n").stdout.trimmed
        let tree = try await git("--git-dir", store, "mktree", input: "100644 blob \(blob)\tvalue.json\n").stdout.trimmed
        let object = "tree \(tree)\nparent \(parent)\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\n\(message)"
        let commit = try await git("--git-dir", store, "hash-object", "-t", "commit", "-w", "--stdin", input: object).stdout.trimmed
        try await git("--git-dir", store, "update-ref", "refs/heads/main", commit)
        return commit
    }

    @Test func conflictTrailersKeepEveryRecordIdIntact() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Card>.create(at: folder.child("store"))
        let ids = ["a/b", "tab\there", "line\nbreak", "cr\rhere", "100%", "~0", "/\u{301}combining", "(paren) x", "nel\u{85}"]
        try await store.save(ids.map { Card(id: $0, title: "base") })
        let other = try Fork("other")
        try await store.createFork(other)
        try await store.save(ids.map { Card(id: $0, title: "theirs") }, to: other)
        try await store.save(ids.map { Card(id: $0, title: "ours") })
        guard case .merged(let merge, let conflicts) = try await store.merge(from: other, into: .main) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(conflicts.count == ids.count)
        #expect(merge.trailer("Merge-Strategy") == "record-by-record")
        #expect(merge.trailer("Merge-Conflicts") == String(ids.count))
        try await Self.expectGitAgrees(with: merge, in: store.path)
        let written = merge.trailers.filter { $0.key == "Merge-Conflict" }.map(\.value)
        #expect(written.count == ids.count)
        #expect(written == written.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        var recovered: Set<String> = []
        for value in written {
            let pointer = try #require(value.range(of: " (", options: .backwards).map { String(value[..<$0.lowerBound]) })
            #expect(value.hasSuffix("(last-writer-wins)"))
            let unescaped = try #require(pointer.removingPercentEncoding)
            #expect(unescaped.first == "/")
            recovered.insert(Self.unescapedPointerComponent(unescaped.dropFirst()))
        }
        #expect(recovered == Set(ids))
        #expect(written.contains("/~1\u{301}combining (last-writer-wins)"))
        #expect(written.contains("/tab%09here (last-writer-wins)"))
    }

    /// RFC 6901 by Unicode scalar: `~1` is `/`, `~0` is `~`.
    static func unescapedPointerComponent(_ text: Substring) -> String {
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            if scalar == "~", let next = scalars.first, next == "0" || next == "1" {
                result.append(next == "0" ? "~" : "/")
                scalars.removeFirst()
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    @Test func unrelatedRecordHistoriesMergeAsASalvage() async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<Card>.create(at: folder.child("store"))
        let other = try await RecordStore<Card>.create(at: folder.child("other"))
        try await store.save(Card(id: "a", title: "here"))
        try await other.save([Card(id: "a", title: "there"), Card(id: "b", title: "only there")])
        try await git("--git-dir", store.path, "fetch", "-q", other.path, "main:refs/heads/alien")
        guard case .merged(let merge, let conflicts) = try await store.merge(from: Fork("alien"), into: .main) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(merge.trailer("Merge-Strategy") == "salvage")
        #expect(conflicts.map(\.path) == ["/a"])
        #expect(try await store.count() == 2)
        try await Self.expectGitAgrees(with: merge, in: store.path)
    }

    @Test func aWholeValueConflictIsWrittenWithoutAPath() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "base"))
        let other = try Fork("other")
        try await store.createFork(other)
        try await store.save(Doc(title: "theirs"), to: other)
        try await store.save(Doc(title: "ours"))
        guard case .merged(let merge, _) = try await store.merge(from: other, into: .main) else {
            Issue.record("expected a merge commit")
            return
        }
        #expect(merge.trailer("Merge-Conflict") == "(last-writer-wins)")
        try await Self.expectGitAgrees(with: merge, in: store.path)
    }

    struct Measure: Resource, Equatable {
        static let modelVersion = 1
        var value: Double
    }

    struct Count: Resource, Equatable {
        static let modelVersion = 1
        var value: Int
    }

    @Test func oneValueHasOneBlobWhateverTypeOrFormWroteIt() async throws {
        let folder = TemporaryFolder()
        let double = try await Store<Measure>.create(at: folder.child("double"))
        let integer = try await Store<Count>.create(at: folder.child("integer"))
        try await double.save(Measure(value: 9_007_199_254_740_992))
        try await integer.save(Count(value: 9_007_199_254_740_992))
        let one = try await git("--git-dir", double.path, "rev-parse", "main:value.json").stdout
        let two = try await git("--git-dir", integer.path, "rev-parse", "main:value.json").stdout
        #expect(one == two)
        for form in ["9007199254740992", "9007199254740992.0", "9.007199254740992e15", "90071992547409920e-1"] {
            #expect(try CanonicalJSON.canonicalize(Array("{\"value\": \(form)}".utf8)) == Array("{\n  \"value\": 9007199254740992\n}\n".utf8))
        }
        try await double.save(Measure(value: 0.00001))
        #expect(try await git("--git-dir", double.path, "show", "main:value.json").stdout == "{\n  \"value\": 0.00001\n}\n")
        #expect(try await double.value() == Measure(value: 0.00001))
    }
}
