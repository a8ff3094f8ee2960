// A writer process for the multi-process and crash tests.
//
//   forkstore-stress-writer STORE PREFIX COUNT [FORK]
//     Adds PREFIX-0 ... PREFIX-(COUNT-1) to a Tally on FORK (default main), one commit each,
//     printing "done ITEM" after each commit returns, so the parent knows what was acknowledged.
//   forkstore-stress-writer import STORE PREFIX COUNT BATCH
//     Imports records PREFIX-0 ... into a record collection with importRecords (batches of
//     BATCH, segments of 8 batches per pack), printing "done N" after each segment returns.
//   forkstore-stress-writer save STORE PREFIX COUNT
//     Saves records PREFIX-0 ... one per commit, printing "done ITEM" after each.
//   forkstore-stress-writer pack STORE
//     Prints "done start", packs the store (loose objects, then a roll-up of its packs, waiting
//     for any other packer), and prints "done packed".
//   forkstore-stress-writer compact STORE PREFIX COUNT KEEP keep|drop
//     Saves records PREFIX-0 ... one per commit, printing "done ITEM" after each; after every
//     third, compacts main's history to its last KEEP commits (printing "done compacted"), and
//     with drop, drops the archive and packs (freeing the old history; "done freed").
//   forkstore-stress-writer index STORE
//     Prints "done start", brings the store's query index to main's head (IndexedItem
//     records), and prints "done indexed".
//   forkstore-stress-writer note value|records STORE
//     Saves TaggedNote.sample() (a Set of tags; not Equatable) to a value store or a record
//     collection, then writes it again with its tags inserted in reverse order, printing
//     "done saved ID" and "done rewrote ID" with the fork's head after each write.
//   forkstore-stress-writer read STORE
//     Reads a record collection of IndexedItem records as a process that may not write it
//     would: prints "done records N", "done red N" (a query), "done count N", "done commits N",
//     then tries a save, a fork and a pack, printing "done refused" for each that fails with
//     StoreError.readOnlyStore and "done wrote" or "done failed: ERROR" otherwise.
//   forkstore-stress-writer assets STORE
//     Reads the assets of a record collection as a process that may not write it would:
//     prints "done pinned N", "done local N" (pinned assets whose bytes are here and read back
//     whole), then tries adding bytes, pinning, unpinning and collecting, printing "done
//     refused" for each that fails with StoreError.readOnlyStore.
//   forkstore-stress-writer replica STORE URL PREFIX EDITS SYNC_EVERY SECONDS
//     One replica of a swarm (ReplicaSwarm): creates the Tally store if it is missing, adds
//     PREFIX-0 ... PREFIX-(EDITS-1), one commit each, and syncs with URL after every
//     SYNC_EVERY edits and after the last (once when EDITS is 0), printing "done synced N"
//     with the sync's push attempts. A sync that lost every push race (pushRejected) prints
//     "done rejected N" and is tried again after a pause, until SECONDS have passed. Still
//     running a minute after that, it exits with status 3.
//   forkstore-stress-writer asset-push STORE URL FILE PAUSE_MS [ASSETS_URL]
//     Adds FILE as the asset of record "big" in the AttachmentNote collection STORE (created if
//     missing; added on the first run only; a folder: each of its files as a record named by
//     the file) and syncs with URL, printing "done added", "done uploaded N" with the upload's
//     progress, "done seconds S" (the sync's wall time) and "done synced N" (assets uploaded).
//     PAUSE_MS waits between megabytes of the upload, so a test can kill it half-way.
//     ASSETS_URL is the remote's assets URL (a Git LFS endpoint); without it, derived from URL.
//     FORKSTORE_STRESS_QUIET=1 in the environment leaves the progress lines out.
//   forkstore-stress-writer asset-fetch STORE URL PAUSE_MS [ASSETS_URL]
//     Syncs the AttachmentNote collection STORE (created if missing) with URL, prints "done
//     synced", fetches the assets of every record in one call, printing "done downloaded N"
//     with the download's progress, "done seconds S" (the fetch's wall time) and "done fetched
//     PATH" for each, in the records' order. PAUSE_MS waits between megabytes.
//   forkstore-stress-writer swarm REPLICAS [EDITS SYNC_EVERY CONCURRENCY SECONDS]
//     Runs a ReplicaSwarm (defaults 20 10 8 3600) in a temporary folder and prints its figures;
//     exits 1 when it found a problem. scripts/replica-benchmark.sh runs it.
import ForkStore
import ForkStoreExchange
import ForkStoreQueries
import ForkStoreTestSupport
import Foundation

struct Item: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var text: String
}

let arguments = CommandLine.arguments
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("forkstore-stress-writer: \(message)\n".utf8))
    exit(1)
}
func acknowledge(_ text: String) {
    FileHandle.standardOutput.write(Data("done \(text)\n".utf8))
}

do {
    switch arguments.count > 1 ? arguments[1] : "" {
    case "import":
        guard arguments.count == 6, let count = Int(arguments[4]), let batch = Int(arguments[5]) else { fail("usage") }
        let store = try RecordStore<Item>.open(at: arguments[2])
        var next = 0
        try store.importRecords(batchSize: batch, progress: { acknowledge(String($0)) }) {
            guard next < count else { return nil }
            defer { next += 1 }
            return Item(id: "\(arguments[3])-\(next)", text: String(repeating: "x", count: 200))
        }
    case "save":
        guard arguments.count == 5, let count = Int(arguments[4]) else { fail("usage") }
        let store = try RecordStore<Item>.open(at: arguments[2])
        for index in 0..<count {
            let id = "\(arguments[3])-\(index)"
            try store.save(Item(id: id, text: "one by one"))
            acknowledge(id)
        }
    case "note":
        guard arguments.count == 4 else { fail("usage") }
        let rewritten = TaggedNote.sample(tagsIn: TaggedNote.sampleTags.reversed())
        if arguments[2] == "records" {
            let store = try RecordStore<TaggedNote>.open(at: arguments[3])
            acknowledge("saved \(try store.save(TaggedNote.sample()).id)")
            acknowledge("rewrote \(try store.save(rewritten).id)")
        } else {
            let store = try Store<TaggedNote>.open(at: arguments[3])
            acknowledge("saved \(try store.save(TaggedNote.sample()).id)")
            acknowledge("rewrote \(try store.update { $0 = rewritten }.id)")
        }
    case "index":
        guard arguments.count == 3 else { fail("usage") }
        let store = try RecordStore<IndexedItem>.open(at: arguments[2])
        acknowledge("start")
        try store.refreshIndex()
        acknowledge("indexed")
    case "read":
        guard arguments.count == 3 else { fail("usage") }
        let store = try RecordStore<IndexedItem>.open(at: arguments[2])
        acknowledge("records \(try store.records().count)")
        acknowledge("red \(try store.query(RecordQuery().filter(\.tags, contains: "red")).count)")
        acknowledge("count \(try store.count(matching: RecordQuery().filter(\.tags, contains: "red")))")
        acknowledge("commits \(try store.history(of: .main).count)")
        let writes: [() throws -> Void] = [
            { try store.save(IndexedItem(id: "refused", title: "t")) },
            { _ = try store.createFork(try Fork("refused"), from: .main) },
            { _ = try store.pack() },
        ]
        acknowledgeEach(writes)
    case "assets":
        guard arguments.count == 3 else { fail("usage") }
        let store = try RecordStore<Item>.open(at: arguments[2])
        let pinned = try store.pinnedAssets()
        acknowledge("pinned \(pinned.count)")
        var local = 0
        for asset in pinned where store.isLocal(asset) {
            try store.verifyAsset(asset)
            if try Data(contentsOf: store.localURL(of: asset)).count == asset.size { local += 1 }
        }
        acknowledge("local \(local)")
        let writes: [() throws -> Void] = [
            { _ = try store.addAsset(Data("refused".utf8)) },
            { try store.pin(pinned[0]) },
            { try store.unpin(pinned[0]) },
            { _ = try store.collectAssets() },
        ]
        acknowledgeEach(writes)
    case "replica":
        guard arguments.count == 8, let edits = Int(arguments[5]), let every = Int(arguments[6]), every > 0,
            let seconds = Double(arguments[7])
        else { fail("usage") }
        try await runReplica(
            store: arguments[2], url: arguments[3], prefix: arguments[4], edits: edits, syncEvery: every,
            deadline: Date().addingTimeInterval(seconds))
    case "swarm":
        guard (3...7).contains(arguments.count) else { fail("usage") }
        if try await !runSwarm(arguments.dropFirst(2)) { exit(1) }
    case "asset-push":
        guard (6...7).contains(arguments.count), let pause = Int(arguments[5]) else { fail("usage") }
        try await runAssetPush(
            store: arguments[2], url: arguments[3], file: arguments[4], pause: .milliseconds(pause),
            assetsURL: arguments.count == 7 ? arguments[6] : nil)
    case "asset-fetch":
        guard (5...6).contains(arguments.count), let pause = Int(arguments[4]) else { fail("usage") }
        try await runAssetFetch(
            store: arguments[2], url: arguments[3], pause: .milliseconds(pause), assetsURL: arguments.count == 6 ? arguments[5] : nil)
    case "compact":
        guard arguments.count == 7, let count = Int(arguments[4]), let keep = Int(arguments[5]) else { fail("usage") }
        let drops = arguments[6] == "drop"
        var options = StoreOptions()
        options.pruneGracePeriod = 0
        let store = try RecordStore<Item>.open(at: arguments[2], options: options)
        for index in 0..<count {
            let id = "\(arguments[3])-\(index)"
            try store.save(Item(id: id, text: "between compactions"))
            acknowledge(id)
            guard index % 3 == 2 else { continue }
            if try store.compactHistory(keeping: .keepCommits(keep, archive: drops ? .drop : .keep)) != nil { acknowledge("compacted") }
            if drops {
                _ = try store.pack()
                acknowledge("freed")
            }
        }
    case "pack":
        guard arguments.count == 3 else { fail("usage") }
        let store = try RecordStore<Item>.open(at: arguments[2])
        acknowledge("start")
        _ = try store.pack()
        acknowledge("packed")
    default:
        guard arguments.count >= 4, let count = Int(arguments[3]) else { fail("usage: see the comment at the top") }
        let store = try Store<Tally>.open(at: arguments[1])
        let fork = try Fork(arguments.count > 4 ? arguments[4] : "main")
        for index in 0..<count {
            let item = "\(arguments[2])-\(index)"
            try store.update(fork, message: "Add \(item)") { tally in
                var next = tally ?? Tally()
                next.items.insert(item)
                tally = next
            }
            acknowledge(item)
        }
    }
} catch {
    fail("\(error)")
}

/// Tries each write of a read-only process, acknowledging "wrote", "refused" (the store said
/// readOnlyStore) or "failed: …".
func acknowledgeEach(_ writes: [() throws -> Void]) {
    for write in writes {
        do {
            try write()
            acknowledge("wrote")
        } catch StoreError.readOnlyStore {
            acknowledge("refused")
        } catch {
            acknowledge("failed: \(error)")
        }
    }
}
