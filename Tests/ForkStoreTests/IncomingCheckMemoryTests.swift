@testable import ForkStore
import ForkStoreGit
import ForkStorePack
import Foundation
import Testing

/// What the checks of a fetch remember stays within its byte budgets: past them, trees are
/// read again and blobs checked again, and nothing is wrong, only slower.
@Suite("Incoming check memory")
struct IncomingCheckMemoryTests {
    static func id(_ index: Int) -> ObjectID {
        ObjectID(hex: String(repeating: "0", count: 32) + String(format: "%08x", index))!
    }

    @Test func remembersBlobsUntilItsBudgetIsSpent() {
        let memory = IncomingCheckMemory(maximumTreeBytes: 0, maximumRecordBytes: 10_000)
        for index in 0..<1_000 { memory.remember(record: "record-\(index)", in: Self.id(index), modelVersion: 1) }
        let kept = (0..<1_000).filter { memory.checkedRecord(Self.id($0), modelVersion: 1) != nil }
        #expect(!kept.isEmpty && kept.count < 200, "\(kept.count) kept in 10,000 bytes")
        #expect(kept == Array(0..<kept.count), "the first ones are kept")
        #expect(memory.checkedRecord(Self.id(0), modelVersion: 2) == nil, "another model version checks again")
    }

    @Test func keepsTreesForTheNextCommitWhileTheyFit() throws {
        let memory = IncomingCheckMemory(maximumTreeBytes: 4_000, maximumRecordBytes: 0)
        var reads = 0
        func read(_ tree: ObjectID) -> [TreeEntry] {
            reads += 1
            return (0..<10).map { TreeEntry(name: "entry-\($0)", id: Self.id($0), kind: .blob) }
        }
        for index in 0..<100 { _ = try memory.entries(of: Self.id(index), read) }
        #expect(reads == 100)
        memory.nextCommit()
        for index in 0..<100 { _ = try memory.entries(of: Self.id(index), read) }
        let again = reads - 100
        #expect(again > 50 && again < 100, "\(100 - again) trees were kept in 4,000 bytes")
    }
}
