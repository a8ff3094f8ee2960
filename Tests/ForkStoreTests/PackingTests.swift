import ForkStore
import ForkStoreTestSupport
import Foundation
import Synchronization
import Testing

/// The records the stress writer writes.
struct StressItem: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var text: String
}

/// Runs the stress writer with `arguments`, kills it with SIGKILL once it has acknowledged
/// `acknowledgements` writes (or when it ends), and returns what it acknowledged.
func runStressWriter(_ arguments: [String], killAfter acknowledgements: Int?) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: productsFolder() + "/forkstore-stress-writer")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var buffer = Data()
    while acknowledgements.map({ String(decoding: buffer, as: UTF8.self).split(separator: "\n").count < $0 }) ?? true {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
    }
    if acknowledgements != nil { kill(process.processIdentifier, SIGKILL) }
    buffer.append(output.fileHandleForReading.readDataToEndOfFile())
    process.waitUntilExit()
    // Only complete lines were acknowledged.
    let text = String(decoding: buffer, as: UTF8.self)
    let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
    return complete.split(separator: "\n").filter { $0.hasPrefix("done ") }.map { String($0.dropFirst(5)) }
}

/// How many files the store's object database holds.
func objectFiles(_ store: String) -> Int {
    let objects = store + "/objects"
    return (FileManager.default.enumerator(atPath: objects)?.allObjects as? [String] ?? [])
        .filter { !((try? FileManager.default.attributesOfItem(atPath: objects + "/" + $0))?[.type] as? FileAttributeType == .typeDirectory) }
        .count
}

@Suite("Packing and crashes")
struct PackingTests {
    @Test func looseObjectsArePackedOnPolicyAndOnDemandWithNothingLost() throws {
        let folder = TemporaryFolder()
        var options = StoreOptions()
        options.packThreshold = 64
        let films = try RecordStore<Film>.create(at: folder.child("films"), options: options)
        for round in 0..<130 {
            try films.save(Film(id: "film-\(round)", title: "Title \(round)", year: round))
        }
        let counted = try git("--git-dir", films.path, "count-objects", "-v").stdout
        func value(_ key: String) -> Int {
            counted.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        #expect(value("in-pack") > 0, "the policy packed: \(counted)")
        try films.pack()
        let after = try git("--git-dir", films.path, "count-objects", "-v").stdout
        #expect(after.contains("count: 0"))
        #expect(try films.count() == 130)
        #expect(try RecordStore<Film>.open(at: films.path).record("film-77")?.year == 77)
        try expectFsckClean(films.path)
    }

    @Test func leftoversOfAKilledWriterAreRemovedByTheNextWrite() throws {
        let folder = TemporaryFolder()
        let store = try RecordStore<StressItem>.create(at: folder.child("store"))
        try store.save(StressItem(id: "a", text: "before"))
        let leftovers = [store.path + "/objects/pack/pack_git2_1a2b3c", store.path + "/objects/ab/tmp_object_git2_x9y8"]
        try FileManager.default.createDirectory(atPath: store.path + "/objects/ab", withIntermediateDirectories: true)
        for path in leftovers { #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 4096))) }
        let reopened = try RecordStore<StressItem>.open(at: store.path)
        try reopened.save(StressItem(id: "b", text: "after"))
        for path in leftovers { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        try expectFsckClean(store.path)
    }

    @Test func aLockFileALiveProcessHoldsIsWaitedForNotDeleted() throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("before")
        // A live `git` holds main.lock open; it is old, but it is not stale.
        let lock = store.path + "/refs/heads/main.lock"
        #expect(FileManager.default.createFile(atPath: lock, contents: Data("0000\n".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: lock)
        let holder = try #require(FileHandle(forUpdatingAtPath: lock))
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Commit, any Error>?>(nil)
        Thread.detachNewThread {
            outcome.withLock { $0 = Result { try store.add("after") } }
            finished.signal()
        }
        Thread.sleep(forTimeInterval: 0.7)
        #expect(FileManager.default.fileExists(atPath: lock), "the store deleted a lock a live process held")
        // The other process finishes: it closes and removes its lock.
        try holder.close()
        try FileManager.default.removeItem(atPath: lock)
        #expect(finished.wait(timeout: .now() + 10) == .success)
        _ = try #require(outcome.withLock { $0 }).get()
        #expect(try store.items() == ["before", "after"])
    }

    @Test func anImportKilledAtAnyMomentLosesNoAcknowledgedRecord() throws {
        let folder = TemporaryFolder()
        let store = try RecordStore<StressItem>.create(at: folder.child("store"))
        var acknowledged = 0
        for round in 0..<6 {
            let done = try runStressWriter(
                ["import", store.path, "r\(round)", "200000", "100"], killAfter: 1 + round % 3)
            acknowledged = max(acknowledged, 0) + (done.last.flatMap { Int($0) } ?? 0)
            let reopened = try RecordStore<StressItem>.open(at: store.path)
            let last = try #require(done.last.flatMap { Int($0) })
            for index in stride(from: 0, to: last, by: max(1, last / 50)) {
                #expect(try reopened.record("r\(round)-\(index)") != nil, "round \(round): r\(round)-\(index) lost")
            }
            try reopened.save(StressItem(id: "after-\(round)", text: "the next write works"))
            try expectFsckClean(store.path)
            let pack = try FileManager.default.contentsOfDirectory(atPath: store.path + "/objects/pack")
            #expect(!pack.contains { $0.hasPrefix("pack_git2_") }, "temporary files left: \(pack)")
        }
        #expect(acknowledged >= 6 * 1600)
    }

    @Test func anImportAndOneByOneWritesFromTwoProcessesLoseNothing() async throws {
        let folder = TemporaryFolder()
        let store = try RecordStore<StressItem>.create(at: folder.child("store"))
        async let imported = Task.detached { try runStressWriter(["import", store.path, "bulk", "20000", "500"], killAfter: nil) }.value
        async let saved = Task.detached { try runStressWriter(["save", store.path, "single", "150"], killAfter: nil) }.value
        let (bulk, single) = try await (imported, saved)
        #expect(bulk.last == "20000" && single.count == 150)
        let reopened = try RecordStore<StressItem>.open(at: store.path)
        #expect(try await reopened.count() == 20_150)
        let ids = Set(try await reopened.records().map(\.id))
        #expect(ids.count == 20_150 && ids.contains("bulk-19999") && ids.contains("single-149"))
        try expectFsckClean(store.path)
        #expect(objectFiles(store.path) < 200, "\(objectFiles(store.path)) files")
    }
}
