/// A value a store holds: `Codable`, `Sendable`, and stamped with the model version of its type.
///
/// Every commit records the writer's ``modelVersion``. Raise it whenever the stored shape of
/// the type changes: an app that reads a commit stamped with a higher version than it knows
/// gets ``StoreError/unknownModelVersion(found:known:commit:)`` instead of a silent decode.
///
/// ```swift
/// struct Settings: Resource {
///     static let modelVersion = 1
///     var theme: String
///     var fontSize: Int
/// }
/// ```
///
/// The same value always gives the same bytes on disk, in every process: the store writes a
/// `Set`'s elements (and the pairs of a `Dictionary` whose keys are not strings or integers)
/// in canonical order, sorted by the bytes of their JSON, not in hash order, which Swift
/// changes from one process to the next. So saving an unchanged value makes
/// no commit, `Equatable` or not. Encode the `Set` itself: an array made from it
/// (`Array(tags)`) is in hash order, and an array keeps its order.
public protocol Resource: Codable, Sendable {
    /// The model version this build writes and the highest it can read. Starts at 1.
    static var modelVersion: Int { get }

    /// How data written by older model versions is brought up to ``modelVersion``. The default
    /// has no stages, which is right while ``modelVersion`` is 1.
    static var migrationPlan: MigrationPlan { get }
}

extension Resource {
    public static var migrationPlan: MigrationPlan { MigrationPlan() }
}
