import ForkStore
import ForkStoreTestSupport
import Foundation
import Testing

/// Version 1 of a task: a `done` flag.
struct TaskV1: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
    var done: Bool
}

/// Version 2: `done` became `completedAt`, and `due` is new and optional.
struct TaskV2: Resource, Identifiable, Equatable, Mergeable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([
        .custom(from: 1, to: 2) { json, _ in
            let done = json["done"] == .bool(true)
            json["done"] = nil
            if done { json["completedAt"] = .number("0") }
        }
    ])
    var id: String
    var title: String
    var completedAt: Date?
    var due: Date?

    /// Title by last-writer-wins; completion kept from whichever side completed.
    func merged(with other: TaskV2, ancestor: TaskV2) throws -> TaskV2 {
        TaskV2(
            id: id, title: title != ancestor.title ? title : other.title,
            completedAt: completedAt ?? other.completedAt, due: due != ancestor.due ? due : other.due)
    }
}

struct BrokenPlan: Resource {
    static let modelVersion = 3
    static let migrationPlan = MigrationPlan([.lightweight(from: 1, to: 2)])
    var x: Int
}

struct GapPlan: Resource {
    static let modelVersion = 3
    static let migrationPlan = MigrationPlan([.lightweight(from: 1, to: 2), .lightweight(from: 4, to: 3)])
    var x: Int
}

struct ThrowingV2: Resource, Identifiable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([.custom(from: 1, to: 2) { _, _ in throw Broken() }])
    var id: String
    var title: String
    struct Broken: Error {}
}

struct OnlyFromTwo: Resource, Identifiable {
    static let modelVersion = 3
    static let migrationPlan = MigrationPlan([.lightweight(from: 2, to: 3)])
    var id: String
    var title: String
}

@Suite("Model versions and migrations")
struct MigrationTests {
    @Test func plansWithGapsOrMissingStagesAreRefusedAtStartUp() throws {
        let folder = TemporaryFolder()
        let path = folder.child("s")
        _ = try Store<Doc>.create(at: path)
        #expect {
            try Store<BrokenPlan>.open(at: path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .invalidMigrationPlan, let reason = error.reason else { return false }
            return reason.contains("BrokenPlan") && reason.contains("3")
        }
        #expect(throws: StoreError.self) { try Store<GapPlan>.open(at: path) }
    }

    @Test func olderRecordsAreMigratedWhenRead() async throws {
        let folder = TemporaryFolder()
        let path = folder.child("tasks")
        let v1 = try await RecordStore<TaskV1>.create(at: path)
        try await v1.save([TaskV1(id: "a", title: "open", done: false), TaskV1(id: "b", title: "closed", done: true)])
        let v2 = try await RecordStore<TaskV2>.open(at: path)
        #expect(try await v2.record("a")?.completedAt == nil)
        #expect(try await v2.record("b")?.completedAt != nil)
        // A version-2 write next to version-1 records: each record keeps its own stamp.
        try await v2.save(TaskV2(id: "c", title: "new", completedAt: nil, due: Date(timeIntervalSinceReferenceDate: 0)))
        #expect(try await v2.count() == 3)
        let c = try await git("--git-dir", path, "show", "main:\(RecordPath(id: "c"))").stdout
        #expect(c.contains("\"modelVersion\": 2"))
        let a = try await git("--git-dir", path, "show", "main:\(RecordPath(id: "a"))").stdout
        #expect(a.contains("\"modelVersion\": 1"))
        // The version-1 app cannot read the version-2 record, and says so.
        #expect {
            try v1.record("c")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unknownModelVersion && error.foundVersion == 2 && error.supportedVersion == 1
        }
    }

    @Test func aVersionOneBaseWithVersionTwoSidesMergesCorrectly() throws {
        let folder = TemporaryFolder()
        let path = folder.child("tasks")
        let v1 = try RecordStore<TaskV1>.create(at: path)
        try v1.save(TaskV1(id: "t", title: "Write the report", done: false))
        let v2 = try RecordStore<TaskV2>.open(at: path)
        let phone = try Fork("phone")
        try v2.createFork(phone)
        try v2.update("t") { $0.title = "Write the annual report" }
        try v2.update("t", in: phone) { $0.completedAt = Date(timeIntervalSinceReferenceDate: 100) }
        guard case .merged = try v2.mergeIntoMain(from: phone) else {
            Issue.record("expected a merge")
            return
        }
        let merged = try #require(try v2.record("t"))
        #expect(merged.title == "Write the annual report")
        #expect(merged.completedAt == Date(timeIntervalSinceReferenceDate: 100))
    }

    @Test func aSideStillAtVersionOneIsMigratedBeforeTheMerge() throws {
        let folder = TemporaryFolder()
        let path = folder.child("tasks")
        let v1 = try RecordStore<TaskV1>.create(at: path)
        try v1.save(TaskV1(id: "t", title: "Plan", done: false))
        let old = try Fork("old-device")
        try v1.createFork(old)
        try v1.update("t", in: old) { $0.done = true }
        let v2 = try RecordStore<TaskV2>.open(at: path)
        try v2.update("t") { $0.title = "Plan B" }
        try v2.mergeIntoMain(from: old)
        let merged = try #require(try v2.record("t"))
        #expect(merged.title == "Plan B" && merged.completedAt != nil)
    }

    @Test func singleValuesAreMigratedToo() throws {
        let folder = TemporaryFolder()
        let path = folder.child("doc")
        let v1 = try Store<TaskV1>.create(at: path)
        try v1.save(TaskV1(id: "x", title: "single", done: true))
        let v2 = try Store<TaskV2>.open(at: path)
        #expect(try v2.value()?.completedAt != nil)
        let written = try v2.update { $0?.title = "single, now v2" }
        #expect(written.modelVersion == 2)
    }

    @Test func aFailingStageAndTooOldDataGiveTypedErrors() throws {
        let folder = TemporaryFolder()
        let path = folder.child("tasks")
        let v1 = try RecordStore<TaskV1>.create(at: path)
        try v1.save(TaskV1(id: "t", title: "x", done: false))
        #expect {
            try RecordStore<ThrowingV2>.open(at: path).record("t")
        } throws: { error in
            guard let error = error as? StoreError, error.code == .migrationFailed, error.foundVersion == 1 else { return false }
            return error.path == RecordPath(id: "t").description
        }
        #expect {
            try RecordStore<OnlyFromTwo>.open(at: path).record("t")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unsupportedModelVersion && error.foundVersion == 1 && error.supportedVersion == 2
        }
    }
}
