import ForkStore
import ForkStoreMigrationTesting
import ForkStoreTestSupport
import Foundation
import Testing

struct TodoV1: Resource, Identifiable, Equatable {
    static let modelVersion = 1
    var id: String
    var title: String
    var done: Bool
    var notes: String?
}

struct TodoV2: Resource, Identifiable, Equatable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([
        .custom(from: 1, to: 2) { json, _ in
            if json["done"] == .bool(true) { json["completedAt"] = .number("0") }
            json["done"] = nil
        }
    ])
    var id: String
    var title: String
    var completedAt: Date?
    var notes: String?
}

/// A deliberately broken migration: it drops the title the model requires.
struct TodoV2Broken: Resource, Identifiable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([
        .custom(from: 1, to: 2) { json, _ in
            if json["title"] == .string("second") { json["title"] = nil }
        }
    ])
    var id: String
    var title: String
    var completedAt: Date?
}

/// Version 2 that removes a field with only a lightweight stage: a risky change.
struct TodoV2Lightweight: Resource, Identifiable {
    static let modelVersion = 2
    static let migrationPlan = MigrationPlan([.lightweight(from: 1, to: 2)])
    var id: String
    var title: String
    var notes: String
}

@Suite("The migration-testing kit")
struct MigrationKitTests {
    /// A store whose history mixes version-1 and version-2 commits, on two forks.
    private func mixedHistory() throws -> (TemporaryFolder, String) {
        let folder = TemporaryFolder()
        let path = folder.child("todos")
        let v1 = try RecordStore<TodoV1>.create(at: path)
        try v1.save(TodoV1(id: "a", title: "first", done: true, notes: nil))
        try v1.save(TodoV1(id: "b", title: "second", done: false, notes: "n"))
        try v1.createFork(try Fork("old-device"))
        try v1.save(TodoV1(id: "c", title: "third", done: false, notes: nil), to: try Fork("old-device"))
        let v2 = try RecordStore<TodoV2>.open(at: path)
        try v2.save(TodoV2(id: "d", title: "fourth", completedAt: nil, notes: nil))
        try v2.update("a") { $0.title = "first, edited by v2" }
        return (folder, path)
    }

    @Test func replayDecodesEveryCommitOfAMixedHistory() throws {
        let (folder, path) = try mixedHistory()
        _ = folder
        let report = try MigrationChecks.expectHistoryReplays(try RecordStore<TodoV2>.open(at: path))
        #expect(report.commits == 6)  // create, a, b, c on old-device, d, a edited
        #expect(report.values == 5)
    }

    @Test func aBrokenMigrationIsCaughtAndItsCommitNamed() async throws {
        let (folder, path) = try mixedHistory()
        _ = folder
        let report = try await RecordStore<TodoV2Broken>.open(at: path).replayHistory()
        let failure = try #require(report.firstFailure)
        #expect(failure.subject == "Save record b")
        guard failure.error.code == .undecodableValue, let reason = failure.error.reason else {
            Issue.record("expected a decoding failure, got \(failure.error)")
            return
        }
        #expect(reason.contains("title"))
        let commits = try await git("--git-dir", path, "log", "--format=%H %s", "main").stdout
        #expect(commits.contains("\(failure.commit.hex) Save record b"))
    }

    @Test func theRiskyChangeCheckCatchesARemovedField() throws {
        let old = SchemaSnapshot(of: TodoV1(id: "x", title: "t", done: false, notes: nil))
        let lightweight = SchemaSnapshot(of: TodoV2Lightweight(id: "x", title: "t", notes: ""))
        let risky = SchemaSnapshot.riskyChanges(from: old, to: lightweight, plan: TodoV2Lightweight.migrationPlan)
        #expect(risky.contains(RiskyChange(kind: .removed, field: "done")))
        #expect(risky.contains(RiskyChange(kind: .madeRequired, field: "notes")))
        // The custom stage of the real version 2 handles its changes.
        let v2 = SchemaSnapshot(of: TodoV2(id: "x", title: "t", completedAt: nil, notes: nil))
        #expect(SchemaSnapshot.riskyChanges(from: old, to: v2, plan: TodoV2.migrationPlan).isEmpty)
        #expect(!SchemaSnapshot.riskyChanges(from: old, to: v2, plan: MigrationPlan([.lightweight(from: 1, to: 2)])).isEmpty)
        #expect(old.fields["notes"] == SchemaSnapshot.Field(type: "String", optional: true))
    }

    @Test func snapshotsRoundTripThroughTheirCheckedInForm() throws {
        let folder = TemporaryFolder()
        let snapshot = SchemaSnapshot(of: TodoV2(id: "x", title: "t", completedAt: nil, notes: nil))
        let file = folder.child("v2.json")
        try Data(try snapshot.encoded()).write(to: URL(fileURLWithPath: file))
        try MigrationChecks.expectSnapshot(snapshot, matchesFileAt: file)
        try MigrationChecks.expectNoRiskyChanges(from: file, to: snapshot, plan: TodoV2.migrationPlan)
    }
}
