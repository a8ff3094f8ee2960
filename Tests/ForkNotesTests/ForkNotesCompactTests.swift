import ForkStoreTestSupport
import Foundation
import Testing

@Suite("forknotes compact")
struct ForkNotesCompactTests {
    @Test func compactKeepsTheNotesAndLogAndStatusShowTheHorizon() async throws {
        let cli = ForkNotes()
        try await cli.ok("init", "--store", cli.store)
        for index in 0..<6 { try await cli.ok("add", "--store", cli.store, "--title", "Note \(index)") }
        let before = try await cli.notes().compactMap { $0["id"] as? String }.sorted()
        #expect(try await cli.ok("status", "--store", cli.store).contains("horizon:      none"))

        let refused = try await cli("compact", "--store", cli.store)
        #expect(refused.status != 0 && refused.stderr.contains("--keep-commits"))

        let compacted = try await cli.ok("compact", "--store", cli.store, "--keep-commits", "3")
        #expect(compacted.contains("3 commit(s) replayed") && compacted.contains("refs/forkstore/archive/"), "\(compacted)")
        #expect(try await cli.notes().compactMap { $0["id"] as? String }.sorted() == before)

        let log = try await cli.ok("log", "--store", cli.store).split(separator: "\n")
        #expect(log.count == 4)
        #expect(log.last?.hasPrefix("K ") == true && log.last?.contains("checkpoint of") == true, "\(log)")
        let json = try await cli.ok("log", "--store", cli.store, "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let horizon = try #require(entries.last?["checkpointOf"] as? String)
        #expect(horizon.count == 40)

        let status = try await cli.ok("status", "--store", cli.store)
        #expect(status.contains("horizon:      history from") && status.contains(String(horizon.prefix(10))), "\(status)")
        let statusJSON = try await cli.ok("status", "--store", cli.store, "--json")
        #expect(statusJSON.contains("\"horizon\" : \"\(horizon)\""), "\(statusJSON)")

        #expect(try await cli.ok("compact", "--store", cli.store, "--keep-commits", "3").contains("nothing to compact"))
        let dropped = try await cli.ok("compact", "--store", cli.store, "--keep-commits", "1", "--drop-archive")
        #expect(dropped.contains("old history dropped"), "\(dropped)")
        let archives = try await git("--git-dir", cli.store, "for-each-ref", "refs/forkstore/archive")
        #expect(archives.stdout.isEmpty)
        #expect(try await cli.notes().compactMap { $0["id"] as? String }.sorted() == before)
        #expect(try await git("--git-dir", cli.store, "fsck", "--strict").status == 0)
    }
}
