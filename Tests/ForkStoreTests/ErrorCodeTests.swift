import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// Errors are matched by code, as GRDB's are: in `catch`, through typed throws, with what
/// libgit2 said kept beside the code.
@Suite("Error codes")
struct ErrorCodeTests {
    @Test func aCodeMatchesInCatchWhateverTheErrorCarries() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let missing = try Fork("nowhere")
        let matched: Bool
        do {
            _ = try store.head(of: missing)
            matched = false
        } catch StoreError.forkNotFound {
            matched = true
        } catch {
            Issue.record("expected forkNotFound, got \(error)")
            return
        }
        #expect(matched)
        // The same through the properties, with the fork it was about.
        #expect {
            try store.head(of: missing)
        } throws: { error in
            (error as? StoreError)?.code == .forkNotFound && (error as? StoreError)?.fork == "nowhere"
        }
        // A code matches only errors of its own type and code.
        #expect(!(StoreError.forkNotFound ~= StoreError.forkAlreadyExists("x")))
        #expect(!(StoreError.forkNotFound ~= CocoaError(.fileNoSuchFile)))
    }

    @Test func aTypedThrowMatchesByCodeAndKeepsItsDetails() {
        do {
            _ = try Fork("two words")
            Issue.record("a fork name with a space was taken")
        } catch .invalidForkName {
            // `Fork(_:)` throws only StoreError: the implicit member is its code.
        } catch {
            Issue.record("expected invalidForkName, got \(error)")
        }
        do {
            _ = try Fork("two words")
        } catch {
            // `error` is a StoreError, with no cast.
            #expect(error.code == .invalidForkName)
            #expect(error.fork == "two words")
            #expect(error.reason?.isEmpty == false)
            #expect(error.underlyingCode == nil)
            switch error.code {
            case .invalidForkName: break
            default: Issue.record("switch on the code missed: \(error.code)")
            }
        }
    }

    /// A damaged repository fails as `repository`, naming the operation and carrying
    /// libgit2's code: here a fork whose reference file holds no commit id.
    @Test func aDamagedRepositoryKeepsLibgit2sCode() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try store.save(Doc(title: "kept"))
        try Data("not a commit id\n".utf8).write(to: URL(fileURLWithPath: store.path + "/refs/heads/main"))
        do {
            _ = try Store<Doc>.open(at: store.path).head()
            Issue.record("a damaged reference was read")
        } catch let error as StoreError where error.code == .repository {
            #expect((error.underlyingCode ?? 0) < 0, "\(error)")
            #expect(error.operation?.contains("main") == true, "\(error)")
            #expect(error.description.contains(error.operation ?? "-"))
        }
    }

    /// A folder that libgit2 cannot open as a repository is not a store, with libgit2's code.
    @Test func aFolderThatIsNoRepositoryKeepsLibgit2sCode() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try FileManager.default.removeItem(atPath: store.path + "/objects")
        #expect {
            try Store<Doc>.open(at: store.path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .notAStore else { return false }
            return error.underlyingCode != nil && error.path == store.path
        }
    }

    /// A missing object keeps libgit2's `GIT_ENOTFOUND` (-3) and what the store was reading.
    @Test func aMissingObjectKeepsLibgit2sNotFound() async throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        try await store.save(Doc(title: "lost soon"))
        let blob = try await git("--git-dir", store.path, "rev-parse", "main:value.json").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.removeItem(atPath: store.path + "/objects/" + blob.prefix(2) + "/" + blob.dropFirst(2))
        await #expect {
            try await store.value()
        } throws: { error in
            guard let error = error as? StoreError, error.code == .missingObject else { return false }
            return error.object == blob && error.underlyingCode == -3 && error.operation != nil
        }
    }

    /// A system call that fails keeps its `errno`: here the writer's lock file is a folder.
    @Test func aSystemCallFailureKeepsErrno() throws {
        let (folder, store) = try makeStore(Doc.self)
        _ = folder
        let reopened = try Store<Doc>.open(at: store.path)
        try FileManager.default.createDirectory(atPath: store.path + "/forkstore.flock", withIntermediateDirectories: false)
        #expect {
            try reopened.save(Doc(title: "refused"))
        } throws: { error in
            guard let error = error as? StoreError, error.code == .fileSystem else { return false }
            return error.underlyingCode == EISDIR && error.path?.hasSuffix("forkstore.flock") == true
        }
    }

    @Test func codesHaveDistinctStableNamesAndNoneIsLeftOut() throws {
        let names = StoreError.Code.all.map(\.rawValue)
        #expect(Set(names).count == names.count)
        // Every constant declared in StoreError.swift is listed in `all`.
        let source = try String(
            contentsOf: ErrorCodeTests.root.appendingPathComponent("Sources/ForkStore/Errors/StoreError.swift"), encoding: .utf8)
        let declared = source.components(separatedBy: "= Code(rawValue: \"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(declared.map(String.init).sorted() == names.sorted())
        // A code's name is the name of its constant.
        #expect(StoreError.Code.forkNotFound.rawValue == "forkNotFound")
        #expect(StoreError.forkNotFound == StoreError.Code(rawValue: "forkNotFound"))
        #expect(StoreError.Code.locked.description == "locked")
    }

    @Test func messagesReadAsBefore() throws {
        #expect(StoreError.forkNotFound("x").description == "No fork named 'x'.")
        #expect(StoreError.forkNotFound("x") == .forkNotFound("x"))
        #expect(StoreError.forkNotFound("x") != .forkNotFound("y"))
        let commit = try #require(CommitID(String(repeating: "ab", count: 20)))
        let rejected = StoreError.rejectedCommit(commit: commit, path: "", rule: "it is not signed")
        #expect(rejected.message == "Commit ababababab was refused: it is not signed. Nothing from it was merged.")
        #expect(rejected.commit == commit && rejected.reason == "it is not signed" && rejected.path == "")
        // Text from data is escaped in the description, and only there.
        let escaped = StoreError.forkNotFound("a\u{1b}[2Jb")
        #expect(escaped.message.contains("\u{1b}"))
        #expect(escaped.description == "No fork named 'a\\u{1b}[2Jb'.")
        let repository = StoreError.repository(operation: "reading fork 'main'", reason: "bad", underlyingCode: -1)
        #expect(repository.description == "The repository failed during reading fork 'main': bad.")
        #expect(repository.underlyingCode == -1 && repository.operation == "reading fork 'main'")
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}
