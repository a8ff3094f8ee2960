import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// However many fetches a sync refuses, the transfer repository keeps the last one only: after
/// 1,000 hostile syncs it takes no more than that fetch's pack and index, and 64 KB of its own
/// (as the exchange's documentation says). Under a sanitizer, 250: 1,000 took two minutes of
/// CI's AddressSanitizer run, and a repository that grew would show it in a few rounds.
@Suite("The transfer repository stays bounded")
struct QuarantineBoundTests {
    /// What the transfer repository may take besides the one fetch it keeps: its config, HEAD,
    /// references and folders.
    static let ownBytes = 64 << 10

    @Test func aThousandRefusedFetchesLeaveTheLastOneOnly() async throws {
        let rounds = Sanitizer.scaled(1_000, sanitized: 250)
        let lab = try await SyncLab()
        let (store, exchange): (RecordStore<Task2>, Exchange) = try lab.recordReplica("store")
        try await store.save(Task2(id: "good", title: "good"))
        try await exchange.sync()
        let hostile = try await Self.hostileCommits(rounds, on: try CraftedRemote(path: lab.remotePath).main(), in: lab)
        let transfer = store.path + "/forkstore-transfer"

        let started = ContinuousClock.now
        var largest = (own: 0, fetched: 0)
        for commit in hostile {
            // Where a peer's push would put it: the remote's main.
            try (commit + "\n").write(toFile: lab.remotePath + "/refs/heads/main", atomically: true, encoding: .utf8)
            do {
                try await exchange.sync()
                Issue.record("the sync took a record that is not JSON")
            } catch {
                guard let rejected = error.storeError, rejected.code == .rejectedCommit, let rule = rejected.reason, rule.contains("not valid JSON") else { throw error }
            }
            let (own, fetched) = Self.bytes(of: transfer)
            largest = (max(largest.own, own), max(largest.fetched, fetched))
        }
        let elapsed = ContinuousClock.now - started
        print("\(rounds) refused fetches in \(elapsed): the transfer repository took at most \(largest.own >> 10) KB of its own and \(largest.fetched >> 10) KB of fetched packs")
        // No bound on time: on a busy machine it says nothing of the store. What would make
        // later syncs slower, a growing transfer repository, the two bounds here catch.
        #expect(largest.own <= Self.ownBytes)
        // The pack and index of one refused fetch: a 10 KB record, its trees and commit.
        #expect(largest.fetched < 32 << 10)
        #expect(exchange.status.quarantine?.head.hex == hostile.last)
        #expect(try await git("--git-dir", transfer, "rev-parse", "refs/forkstore/quarantine").stdout.hasPrefix(try #require(hostile.last)))
        #expect(try await git("--git-dir", store.path, "fsck", "--strict").status == 0)
    }

    /// `count` commits on top of `good` in the remote, each adding a different record that is
    /// not JSON (10 KB of letters that do not compress), written by one `git fast-import`.
    private static func hostileCommits(_ count: Int, on good: String, in lab: SyncLab) async throws -> [String] {
        var random = SplitMix(state: 24)
        var script = ""
        let path = RecordPath(id: "hostile")
        let file = "\(RecordPath.root)/\(path.shards[0])/\(path.shards[1])/\(path.fileName)"
        let message = "Hostile\n\nModel-Version: 1\nFormat-Version: 1\n"
        for round in 0..<count {
            let content = "not JSON " + String(decoding: (0..<10_000).map { _ in UInt8(97 + random.next() % 26) }, as: UTF8.self)
            script += "blob\nmark :\(2 * round + 1)\ndata \(content.utf8.count)\n\(content)\n"
            script += "commit refs/hostile/\(round)\nmark :\(2 * round + 2)\ncommitter Peer <peer@localhost> 1700000000 +0000\n"
            script += "data \(message.utf8.count)\n\(message)from \(good)\nM 100644 :\(2 * round + 1) \(file)\n\n"
        }
        let (marks, input) = (lab.folder.child("marks"), lab.folder.child("import"))
        try script.write(toFile: input, atomically: true, encoding: .utf8)
        // From a file: the test helpers' pipe holds 64 KB of input, the script 10 MB.
        let imported = try await run("/bin/sh", ["-c", #"git --git-dir "$0" fast-import --quiet --export-marks="$1" < "$2""#, lab.remotePath, marks, input])
        guard imported.status == 0 else { throw ImportFailure(message: imported.stderr) }
        var commits: [Int: String] = [:]
        for line in try String(contentsOfFile: marks, encoding: .utf8).split(separator: "\n") {
            let parts = line.dropFirst().split(separator: " ")
            if let mark = Int(parts[0]), mark % 2 == 0 { commits[mark / 2 - 1] = String(parts[1]) }
        }
        return (0..<count).compactMap { commits[$0] }
    }

    /// The bytes of the transfer repository's files: its own, and those of fetched packs.
    private static func bytes(of repository: String) -> (own: Int, fetched: Int) {
        var own = 0, fetched = 0
        for file in FileManager.default.enumerator(atPath: repository)?.allObjects as? [String] ?? [] {
            let size = (try? FileManager.default.attributesOfItem(atPath: repository + "/" + file))?[.size] as? Int ?? 0
            if file.hasPrefix("objects/pack/pack-") { fetched += size } else { own += size }
        }
        return (own, fetched)
    }

    private struct ImportFailure: Error { let message: String }
}
