import ForkStore
import Foundation
import Testing

/// Checks for app test suites that prove a schema change is safe before it ships.
///
/// ```swift
/// import ForkStoreMigrationTesting
///
/// @Test func everyCommitStillReads() throws {
///     let store = try MigrationChecks.copyOfFixture(at: fixturesFolder + "/notes-v1.store")
///     try MigrationChecks.expectHistoryReplays(try RecordStore<Note>.open(at: store.path))
/// }
///
/// @Test func version2IsASafeChange() throws {
///     try MigrationChecks.expectNoRiskyChanges(
///         from: "Schema/Note/v1.json", to: SchemaSnapshot(of: Note.sample), plan: Note.migrationPlan)
/// }
/// ```
public enum MigrationChecks {
    /// Records an issue naming the first commit, on any fork, that the current model and its
    /// migrations cannot read. Returns the report.
    @discardableResult
    public static func expectHistoryReplays<Value: Resource>(
        _ store: Store<Value>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ReplayReport {
        let report = try store.replayHistory()
        #expect(report.firstFailure == nil, "\(report.firstFailure?.description ?? "")", sourceLocation: sourceLocation)
        return report
    }

    /// Records an issue naming the first commit that adds or changes a record the current
    /// model and its migrations cannot read. Returns the report.
    @discardableResult
    public static func expectHistoryReplays<Record: Resource & Identifiable>(
        _ store: RecordStore<Record>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ReplayReport where Record.ID == String {
        let report = try store.replayHistory()
        #expect(report.firstFailure == nil, "\(report.firstFailure?.description ?? "")", sourceLocation: sourceLocation)
        return report
    }

    /// Records an issue for each risky change from the checked-in snapshot at `oldPath` to
    /// `new`, unless a custom stage of `plan` handles the step.
    public static func expectNoRiskyChanges(
        from oldPath: String, to new: SchemaSnapshot, plan: MigrationPlan, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let old = try SchemaSnapshot.decoded(from: Array(try Data(contentsOf: URL(fileURLWithPath: oldPath))))
        for change in SchemaSnapshot.riskyChanges(from: old, to: new, plan: plan) {
            Issue.record("\(new.type) v\(old.modelVersion) → v\(new.modelVersion): \(change)", sourceLocation: sourceLocation)
        }
    }

    /// Records an issue when the checked-in snapshot at `path` differs from `snapshot` (the
    /// model changed without its snapshot being regenerated).
    public static func expectSnapshot(
        _ snapshot: SchemaSnapshot, matchesFileAt path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let stored = try SchemaSnapshot.decoded(from: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(stored == snapshot, "the snapshot at \(path) is out of date; regenerate it", sourceLocation: sourceLocation)
    }

    /// A copy of a checked-in fixture store in a temporary folder, so tests never change the
    /// fixture. Remove it with `FileManager` when done, or let the system's temporary folder
    /// clean up.
    public static func copyOfFixture(at path: String) throws -> (path: String, remove: @Sendable () -> Void) {
        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("fixture-\(UUID().uuidString.prefix(8))-" + URL(fileURLWithPath: path).lastPathComponent).path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return (copy, { try? FileManager.default.removeItem(atPath: copy) })
    }
}
