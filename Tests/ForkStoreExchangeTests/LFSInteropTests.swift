import ForkStore
@testable import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// ForkStore and Debian's `git lfs` (3.3) read each other's uploads from the same giftless:
/// an asset reference maps one to one to a Git LFS pointer (the same oid and size).
@Suite("Git LFS transport and stock git lfs")
struct LFSInteropTests {
    /// A git work tree with git-lfs's filters, `*.bin` tracked, `lfs.url` at the endpoint and
    /// an `origin` (a bare repository; objects go to `lfs.url`). `git lfs` runs with a home
    /// of its own, never prompting.
    struct LFSRepository {
        let path: String
        let environment: [String: String]

        init(lab: LFSLab, name: String, endpoint: String) async throws {
            path = lab.folder.child(name)
            let home = lab.folder.child("home-\(name)")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            environment = ["HOME": home, "GIT_TERMINAL_PROMPT": "0", "XDG_CONFIG_HOME": home + "/.config"]
            try await git(["init", "-q", "-b", "main", path], environment: environment)
            try await git(["init", "-q", "--bare", "-b", "main", lab.folder.child(name + "-origin.git")], environment: environment)
            for arguments in [
                ["lfs", "install", "--local"], ["config", "lfs.url", endpoint], ["config", "lfs.locksverify", "false"],
                ["remote", "add", "origin", lab.folder.child(name + "-origin.git")],
            ] {
                try await run(arguments)
            }
            try "*.bin filter=lfs diff=lfs merge=lfs -text\n".write(toFile: path + "/.gitattributes", atomically: true, encoding: .utf8)
        }

        /// Runs git in the work tree; fails the test with git's output when git fails.
        @discardableResult
        func run(_ arguments: [String]) async throws -> ProcessResult {
            let result = try await git(["-C", path] + arguments, environment: environment)
            #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stdout) \(result.stderr)")
            return result
        }
    }

    @Test func gitLFSFetchesWhatForkStoreUploaded() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let bytes = pseudoRandomBytes(700_000, seed: 77)
        let sending = lab.assets("sending")
        let object = try lab.add(bytes, to: sending)
        #expect(try await upload(try LFSTransport(endpoint: server.endpoint()), [object], from: sending).sent == 1)

        // A commit holding only the pointer, as ForkStore's reference maps to it.
        let repository = try await LFSRepository(lab: lab, name: "reader", endpoint: server.endpoint())
        let pointer = "version https://git-lfs.github.com/spec/v1\noid \(object.id.oid)\nsize \(object.size)\n"
        try pointer.write(toFile: repository.path + "/photo.bin", atomically: true, encoding: .utf8)
        try await repository.run(["add", ".gitattributes", "photo.bin"])
        try await repository.run(["commit", "-q", "-m", "a pointer"])
        #expect(try await repository.run(["lfs", "ls-files", "--long"]).stdout.contains(object.id.hex))
        try await repository.run(["lfs", "pull"])

        let checkedOut = try #require(FileManager.default.contents(atPath: repository.path + "/photo.bin"))
        #expect(Array(checkedOut) == bytes)
        let hex = object.id.hex
        #expect(FileManager.default.fileExists(atPath: repository.path + "/.git/lfs/objects/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"))
    }

    @Test func forkStoreDownloadsWhatGitLFSPushed() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let bytes = pseudoRandomBytes(900_000, seed: 78)
        let repository = try await LFSRepository(lab: lab, name: "writer", endpoint: server.endpoint())
        try Data(bytes).write(to: URL(fileURLWithPath: repository.path + "/recording.bin"))
        try await repository.run(["add", ".gitattributes", "recording.bin"])
        try await repository.run(["commit", "-q", "-m", "a recording"])
        try await repository.run(["lfs", "push", "--all", "origin"])

        let object = AssetObject(id: assetID(of: bytes), size: bytes.count)
        #expect(FileManager.default.fileExists(atPath: server.storedPath(object.id.hex)))
        let receiving = lab.assets("receiving")
        try await download(try LFSTransport(endpoint: server.endpoint()), [object], into: receiving)
        #expect(receiving.verify(object.id, size: object.size))
        #expect(FileManager.default.contents(atPath: receiving.path(of: object.id)).map(Array.init) == bytes)
    }
}
