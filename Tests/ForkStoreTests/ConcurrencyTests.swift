import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

@Suite("Concurrency and crashes")
struct ConcurrencyTests {
    @Test func manyTasksWritingForksAtOnceLoseNothing() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        let forks = try (0..<4).map { try Fork("task-\($0)") }
        for fork in forks { try await store.createFork(fork) }
        let perTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, fork) in forks.enumerated() {
                // Two tasks per fork, plus the fork's own merges into main, all at once.
                for writer in 0..<2 {
                    group.addTask {
                        for item in 0..<perTask { try store.add("\(index)-\(writer)-\(item)", to: fork) }
                    }
                }
                group.addTask {
                    for item in 0..<perTask { try store.add("main-\(index)-\(item)") }
                    try store.mergeIntoMain(from: fork)
                }
            }
            try await group.waitForAll()
        }
        try await store.syncAllForks()
        let expected = Set(forks.indices.flatMap { index in
            (0..<perTask).flatMap { ["\(index)-0-\($0)", "\(index)-1-\($0)", "main-\(index)-\($0)"] }
        })
        #expect(try store.items() == expected)
        for fork in forks { #expect(try store.items(fork) == expected) }
        try await expectFsckClean(store.path)
    }

    @Test func twoProcessesAppendingToMainLoseNothing() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        let writer = productsFolder() + "/forkstore-stress-writer"
        let count = 40
        let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for prefix in ["p", "q"] { group.addTask { try await run(writer, [store.path, prefix, String(count)]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").count == count)
        }
        let expected = Set((0..<count).flatMap { ["p-\($0)", "q-\($0)"] })
        let reopened = try await Store<Tally>.open(at: store.path)
        #expect(try reopened.items() == expected)
        // Every write is its own commit in the history: 1 create + 2 * count adds.
        #expect(try await reopened.history().count == 1 + 2 * count)
        try await expectFsckClean(store.path)
    }

    @Test func aWriterKilledMidStreamLeavesAWorkingStoreWithEveryAcknowledgedWrite() async throws {
        let (folder, store) = try makeStore()
        _ = folder
        let writer = productsFolder() + "/forkstore-stress-writer"
        var acknowledged = Set<String>()
        for round in 0..<8 {
            // The child is read and killed on a thread of its own, off the cooperative pool.
            let (printed, signalled) = try await onOwnThread { () -> (Set<String>, Bool) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: writer)
                process.arguments = [store.path, "r\(round)", "100000"]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                try process.run()
                // Let it acknowledge a varying number of writes, then kill it without warning.
                let target = 5 + round * 3
                var buffer = Data()
                var lines: [String] = []
                while lines.count < target {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    buffer.append(chunk)
                    lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
                }
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                // Whatever was printed completely before the kill was acknowledged.
                buffer.append(output.fileHandleForReading.availableData)
                let text = String(decoding: buffer, as: UTF8.self)
                let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
                let printed = complete.split(separator: "\n").filter { $0.hasPrefix("done ") }.map { String($0.dropFirst(5)) }
                return (Set(printed), process.terminationReason == .uncaughtSignal)
            }
            acknowledged.formUnion(printed)
            #expect(signalled)

            let reopened = try await Store<Tally>.open(at: store.path)
            let items = try reopened.items()
            #expect(acknowledged.isSubset(of: items), "lost: \(acknowledged.subtracting(items).sorted())")
            try reopened.add("after-\(round)")
            acknowledged.insert("after-\(round)")
            try await expectFsckClean(store.path)
        }
        #expect(acknowledged.count > 8)
    }

    @Test func fsyncDurabilityWritesAndReads() throws {
        let folder = TemporaryFolder()
        let store = try Store<Tally>.create(at: folder.child("durable"), options: StoreOptions(fsync: true))
        try store.add("durable")
        #expect(try Store<Tally>.open(at: store.path).items() == ["durable"])
    }
}
