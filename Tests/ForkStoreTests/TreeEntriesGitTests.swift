@testable import ForkStore
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// Tree objects parsed from their raw bytes (``TreeEntry/entries(parsing:of:)``, how a fetch's
/// walk reads every tree it checks) read as `git ls-tree` reads them.
@Suite("Tree entries parsed from raw bytes")
struct TreeEntriesGitTests {
    /// Trees git wrote, with files, an executable, a symbolic link, a submodule, folders and
    /// names in several writing systems, read raw here: the modes, ids and names `git ls-tree` gives,
    /// in its order.
    @Test func treesGitWroteReadAsGitReadsThem() async throws {
        let folder = TemporaryFolder("tree-entries")
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", repository)
        func blob(_ text: String) async throws -> String {
            try await git("--git-dir", repository, "hash-object", "-w", "--stdin", input: text).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func mktree(_ lines: [String]) async throws -> String {
            try await git("--git-dir", repository, "mktree", input: lines.map { $0 + "\n" }.joined()).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (a, b) = (try await blob("a"), try await blob("b"))
        let inner = try await mktree(["100644 blob \(a)\tnote.json", "100755 blob \(b)\trun"])
        let root = try await mktree([
            "100644 blob \(a)\tb.json", "040000 tree \(inner)\tb", "120000 blob \(b)\tlink", "160000 commit 1234567890123456789012345678901234567890\tmodule",
            "100644 blob \(b)\tnäme ü.json", "100644 blob \(a)\t日本.json", "040000 tree \(inner)\tz z",
        ])
        let opened = try Repository.openBare(at: repository)
        for tree in [root, inner] {
            let listed = try await git("--git-dir", repository, "ls-tree", "-z", tree).stdout
                .split(separator: "\0").map { line -> String in
                    let (info, name) = (line.prefix { $0 != "\t" }, line.drop { $0 != "\t" }.dropFirst())
                    let fields = info.split(separator: " ")
                    return "\(fields[0]) \(fields[2]) \(name)"
                }
            let id = try #require(ObjectID(hex: tree))
            let read = try opened.treeEntriesBypassingCache(id).map { entry in
                "\(String(repeating: "0", count: max(0, 6 - String(entry.mode, radix: 8).count)))\(String(entry.mode, radix: 8)) \(entry.id.hex) \(entry.name)"
            }
            #expect(read == listed)
        }
    }

    /// A fetched commit whose tree holds a folder that is not a tree in git's format (its
    /// mode signed) is refused, naming the folder, as any other rule of the tree.
    @Test func aFolderNotInGitsFormatRefusesItsCommit() async throws {
        let folder = TemporaryFolder("tree-entries")
        let films = try await RecordStore<Film>.create(at: folder.child("films"))
        func object(_ arguments: String..., input: String) async throws -> String {
            try await git(["--git-dir", films.path] + arguments, input: input).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let records = try await object("hash-object", "-t", "tree", "--literally", "-w", "--stdin", input: "+40000 ab\0" + String(repeating: "A", count: 20))
        let root = try await object("mktree", input: "040000 tree \(records)\trecords\n")
        let commit = try await object("commit-tree", root, "-m", "Hostile\n\nModel-Version: 1", input: "")
        let failure = try await onOwnThread {
            try films.engine.read { session -> StoreError? in
                do {
                    _ = try RecordLayout<Film>().validate(
                        session.commit(#require(ObjectID(hex: commit))), against: nil, limits: BlobLimits(size: 10_000),
                        memory: IncomingCheckMemory(), deferringRecords: false, in: session)
                    return nil
                } catch let error as StoreError {
                    return error
                }
            }
        }
        #expect(failure?.code == .rejectedCommit && failure?.path == "records", "\(String(describing: failure))")
        #expect(failure?.reason?.contains("not a tree in git's format") == true, "\(String(describing: failure))")
    }

    /// Bytes that are not a tree as git reads one are refused: a mode with a sign or another
    /// character than an octal digit, an empty mode, a name without its end, an id cut short;
    /// here also a mode over 32 bits. A mode with leading zeros is read as git reads it, and an
    /// empty name is read (the layout refuses it with its path).
    @Test func onlyGitsFormParses() throws {
        let id = [UInt8](repeating: 0xAB, count: 20)
        func parse(_ text: String, _ tail: [UInt8]) -> [TreeEntry]? {
            (Array(text.utf8) + tail).withUnsafeBytes { try? TreeEntry.entries(parsing: $0, of: .zero) }
        }
        #expect(parse("100644 a\0", id)?.map(\.mode) == [0o100644])
        #expect(parse("0100644 a\0", id)?.map(\.mode) == [0o100644])
        #expect(parse("40000 d\0", id)?.map(\.kind) == [.tree])
        #expect(parse("37777777777 a\0", id)?.map(\.mode) == [UInt32.max])
        #expect(parse("100644 \0", id)?.map(\.name) == [""])
        for bad in ["+100644 a\0", "-0 a\0", " a\0", "100844 a\0", "100644 a", "40000000000 a\0"] {
            #expect(parse(bad, id) == nil, "\(bad)")
        }
        #expect(parse("100644 a\0", Array(id.prefix(19))) == nil)
        #expect(parse("", []) == [])
    }
}
