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
            guard let error = error as? StoreError, error.code == .invalidForkName, let reason = error.reason else { return false }
            return error.fork == name && !reason.isEmpty
        }
    }

    @Test(arguments: ["main", "cloud", "ui", "feature/drafts", "v1.2", "x-y_z", "Ünïcode", "a@b"])
    func validNamesAreAccepted(_ name: String) throws {
        #expect(try Fork(name).name == name)
    }
}
