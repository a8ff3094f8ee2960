import ForkStorePack
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("First parents read from packed commit headers")
struct PackedFirstParentsTests {
    /// A history of 200 commits with merges, packed by `git repack`, and 3 loose commits on
    /// top: every packed commit's answer is git's first parent (or root), and no loose one
    /// has an answer.
    @Test func everyPackedCommitAnswersAsGitDoes() async throws {
        let folder = TemporaryFolder("first-parents")
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", "-b", "main", repository)
        var stream = ""
        for number in 1...200 {
            stream += "commit refs/heads/\(number % 7 == 0 ? "side" : "main")\ncommitter A <a@example.com> \(1_700_000_000 + number) +0000\n"
            stream += "data 3\nc\(number % 10)\n"
            if number == 7 { stream += "from refs/heads/main\n" }
            if number % 21 == 0 { stream += "merge refs/heads/side\n" }
            stream += "M 644 inline file\ndata \(String(number).utf8.count)\n\(number)\n\n"
        }
        #expect(try await git(["--git-dir", repository, "fast-import", "--quiet"], input: stream).status == 0)
        #expect(try await git("--git-dir", repository, "repack", "-a", "-d", "-q").status == 0)
        var loose: Set<String> = []
        for number in 1...3 {
            let tree = try await git("--git-dir", repository, "rev-parse", "main^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let id = try await git("--git-dir", repository, "commit-tree", tree, "-p", "main", "-m", "loose \(number)",
                                   environment: ["GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com"])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try await git("--git-dir", repository, "update-ref", "refs/heads/main", id)
            loose.insert(id)
        }
        let packs = PackFile.packs(in: repository + "/objects/pack")
        #expect(packs.count == 1)
        let verified = try await git("--git-dir", repository, "verify-pack", "-v", try #require(packs.first).base + ".idx").stdout
        // A delta's line has 7 fields: id, type, size, size in pack, offset, depth, base.
        var deltas: Set<String> = []
        for line in verified.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 7, fields[1] == "commit" { deltas.insert(String(fields[0])) }
        }

        var reader = try PackedFirstParents(packs: packs)
        let lines = try await git("--git-dir", repository, "rev-list", "--all", "--parents").stdout.split(separator: "\n")
        #expect(lines.count == 203)
        var roots = 0, children = 0, merges = 0
        for line in lines {
            let ids = line.split(separator: " ").map(String.init)
            let answer = try reader.firstParent(of: try #require(ObjectID(hex: ids[0])))
            if loose.contains(ids[0]) || deltas.contains(ids[0]) {
                #expect(answer == nil, "\(ids[0]) is not a whole packed commit")
            } else if ids.count == 1 {
                #expect(answer == .root)
                roots += 1
            } else {
                #expect(answer == .parent(try #require(ObjectID(hex: ids[1]))), "\(ids[0])'s first parent is \(ids[1])")
                children += 1
                if ids.count > 2 { merges += 1 }
            }
        }
        #expect(roots == 1 && merges > 0 && children > 150)
        // An id no pack holds (a blob's, or none) has no answer.
        let blob = try await git("--git-dir", repository, "rev-parse", "main:file").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try reader.firstParent(of: try #require(ObjectID(hex: blob))) == nil)
        #expect(try reader.firstParent(of: .zero) == nil)
    }

    /// A history written in three parts, a pack each (as a large store holds tens): a walk
    /// from the head crosses from pack to pack and meets every first parent git's does.
    @Test func aWalkCrossesPacksAsGitsDoes() async throws {
        let folder = TemporaryFolder("first-parents-packs")
        let repository = folder.child("r.git")
        try await git("init", "-q", "--bare", "-b", "main", repository)
        for part in 0..<3 {
            var stream = ""
            for number in part * 50 + 1...(part + 1) * 50 {
                stream += "commit refs/heads/main\ncommitter A <a@example.com> \(1_700_000_000 + number) +0000\ndata 3\nc\(number % 10)\n"
                if number > 1 && number == part * 50 + 1 { stream += "from refs/heads/main^0\n" }
                stream += "M 644 inline file\ndata \(String(number).utf8.count)\n\(number)\n\n"
            }
            #expect(try await git(["--git-dir", repository, "fast-import", "--quiet"], input: stream).status == 0)
        }
        let packs = PackFile.packs(in: repository + "/objects/pack")
        #expect(packs.count == 3)
        let expected = try await git("--git-dir", repository, "rev-list", "--first-parent", "main").stdout.split(separator: "\n").map(String.init)
        #expect(expected.count == 150)
        var reader = try PackedFirstParents(packs: packs)
        var walked = [try #require(expected.first)]
        while let id = ObjectID(hex: walked[walked.count - 1]), case .parent(let parent) = try reader.firstParent(of: id) {
            walked.append(parent.hex)
        }
        #expect(walked == expected)
    }

    /// A pack removed since it was listed (a roll-up in another process) is left out, not an
    /// error: its commits are read the other way.
    @Test func aPackThatIsGoneIsLeftOut() throws {
        var reader = try PackedFirstParents(packs: [PackFile(base: "/nonexistent/objects/pack/pack-0", objectCount: 1, isKept: false)])
        #expect(try reader.firstParent(of: .zero) == nil)
    }

    @Test func onlyTheLinesGitWritesAreRead() {
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904", parent = "0123456789abcdef0123456789abcdef01234567"
        func read(_ text: String) -> PackedFirstParents.Answer? { PackedFirstParents.parse(Array(text.utf8.prefix(PackedFirstParents.headerLength))) }
        #expect(read("tree \(tree)\nauthor A <a@b> 1 +0000\n") == .root)
        #expect(read("tree \(tree)\nparent \(parent)\nauthor A <a@b> 1 +0000\n") == .parent(ObjectID(hex: parent)!))
        #expect(read("tree \(tree)\nparent \(parent.dropLast())g\nauthor A\n") == nil)
        #expect(read("tree \(tree)\nparent \(parent)") == nil)
        #expect(read("tree \(tree)\nencoding x\nauthor A <a@b> 1 +0000\n") == nil)
        #expect(read("tree \(tree.dropLast())\nparent \(parent)\n") == nil)
        #expect(read("tree \(tree)\n") == nil)
    }
}
