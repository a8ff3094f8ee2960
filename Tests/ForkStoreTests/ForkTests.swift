import ForkStore
import ForkStoreTestSupport
import Testing

@Suite("Forks")
struct ForkTests {
    @Test(arguments: [
        "", "a..b", "x.lock", "dir/x.lock", "has space", "tab\there", "nul\u{0}x", "-leading", "a@{1}",
        "back\\slash", "ends/", "/starts", "double//slash", ".hidden", "dir/.hidden", "ends.", "col:on",
        "quest?ion", "st*ar", "br[acket", "til~de", "car^et", "HEAD", "@", "del\u{7F}",
        String(repeating: "x", count: 201),
    ])
    func invalidNamesAreRefusedWithAReason(_ name: String) throws {
        #expect {
            try Fork(name)
        } throws: { error in
            guard case StoreError.invalidForkName(let refused, let reason) = error else { return false }
            return refused == name && !reason.isEmpty
        }
    }

    @Test(arguments: ["main", "cloud", "ui", "feature/drafts", "v1.2", "x-y_z", "Ünïcode", "a@b"])
    func validNamesAreAccepted(_ name: String) throws {
        #expect(try Fork(name).name == name)
    }

    @Test func createListAndDelete() throws {
        let (folder, store) = try makeStore()
        _ = folder
        try store.add("a")
        let ui = try Fork("ui"), drafts = try Fork("feature/drafts")
        let start = try store.createFork(ui)
        #expect(start.id == (try store.head()).id)
        try store.createFork(drafts, from: ui)
        #expect(try store.forks() == [drafts, .main, ui])
        #expect(throws: StoreError.forkAlreadyExists("ui")) { try store.createFork(ui) }
        try store.deleteFork(ui)
        #expect(try store.forks() == [drafts, .main])
        #expect(throws: StoreError.forkNotFound("ui")) { try store.deleteFork(ui) }
        #expect(throws: StoreError.protectedFork("main")) { try store.deleteFork(.main) }
        #expect(throws: StoreError.forkNotFound("ui")) { try store.value(in: ui) }
    }

    @Test func forkFromAnEarlierCommit() throws {
        let (folder, store) = try makeStore()
        _ = folder
        let first = try store.add("a")
        try store.add("b")
        let old = try Fork("old")
        try store.createFork(old, at: first.id)
        #expect(try store.items(old) == ["a"])
        #expect(try store.items() == ["a", "b"])
        let bogus = try #require(CommitID(String(repeating: "ab", count: 20)))
        #expect(throws: StoreError.commitNotFound(bogus.hex)) { try store.createFork(try Fork("x"), at: bogus) }
    }
}
