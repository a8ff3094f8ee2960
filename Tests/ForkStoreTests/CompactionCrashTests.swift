import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// SIGKILL during compaction loses nothing: the stress writer saves, compacts and (dropping
/// the archive) frees old history, another process saves meanwhile, and the first is killed at
/// varied moments. Each time the store opens, passes `git fsck`, and holds every acknowledged
/// record.
@Suite("Compaction killed at any moment")
struct CompactionCrashTests {
    @Test(arguments: ["keep", "drop"])
    func aCompactionKilledAtAnyMomentLosesNothing(_ archive: String) async throws {
        let folder = TemporaryFolder()
        let store = try await RecordStore<StressItem>.create(at: folder.child("store"))
        var acknowledged = Set<String>()
        var compactions = 0
        for round in 0..<8 {
            async let compacting = runStressWriter(
                ["compact", store.path, "c\(round)", "600", "4", archive], killAfter: 4 + round * 5, delay: Double(round % 4) * 0.004)
            async let saving = runStressWriter(["save", store.path, "s\(round)", "25"], killAfter: nil)
            let done = try await compacting + saving
            compactions += done.filter { $0 == "compacted" }.count
            acknowledged.formUnion(done.filter { $0 != "compacted" && $0 != "freed" })

            try await expectFsckClean(store.path)
            let reopened = try await RecordStore<StressItem>.open(at: store.path)
            let ids = Set(try await reopened.records().map(\.id))
            let lost = acknowledged.subtracting(ids)
            #expect(lost.isEmpty, "round \(round): lost \(lost.sorted())")
            // The history still reads, from the checkpoint (and the archive while it is kept).
            #expect(try await reopened.replayHistory().firstFailure == nil)
            try await reopened.save(StressItem(id: "after-\(round)", text: "the next write works"))
            acknowledged.insert("after-\(round)")
        }
        #expect(compactions > 0)
        let history = try await store.history()
        #expect(history.count < acknowledged.count, "nothing was compacted")
        let archives = try await git("--git-dir", store.path, "for-each-ref", "refs/forkstore/archive").stdout
        // Kept archives hold the old history; dropped ones may remain only from a kill
        // between a compaction and its drop.
        if archive == "keep" { #expect(!archives.isEmpty) }
    }
}
