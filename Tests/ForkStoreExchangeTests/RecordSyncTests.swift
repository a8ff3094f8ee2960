import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

struct Task2: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
}

@Suite("Exchange with record collections")
struct RecordSyncTests {
    @Test func recordCollectionsSyncRecordByRecord() async throws {
        let lab = try SyncLab()
        let one = try RecordStore<Task2>.create(at: lab.folder.child("one"))
        let two = try RecordStore<Task2>.create(at: lab.folder.child("two"))
        let oneSync = Exchange(records: one, remote: try Remote(lab.remotePath))
        let twoSync = Exchange(records: two, remote: try Remote(lab.remotePath))
        try one.save([Task2(id: "a", title: "from one"), Task2(id: "shared", title: "base")])
        try await oneSync.sync()
        try await twoSync.sync()
        try two.save([Task2(id: "b", title: "from two"), Task2(id: "shared", title: "edited by two")])
        try one.delete("a")
        try await twoSync.sync()
        try await oneSync.sync()
        try await twoSync.sync()
        for store in [one, two] {
            #expect(try store.count() == 2)
            #expect(try store.record("shared")?.title == "edited by two")
            #expect(try store.record("b") != nil && store.record("a") == nil)
        }
        let fsck = try git("--git-dir", lab.remotePath, "fsck", "--strict")
        #expect(fsck.status == 0)
    }
}
