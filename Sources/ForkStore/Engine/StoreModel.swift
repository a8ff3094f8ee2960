/// What a store knows about the app's resource type without being generic over it: the model
/// version it writes and the migration plan that reads older data. Read once when the store
/// opens.
struct StoreModel: Sendable {
    /// The type's name, for messages.
    let typeName: String
    /// The model version this build writes and the highest it reads.
    let version: Int
    /// How older data is brought up to ``version``.
    let plan: MigrationPlan
    /// The oldest model version the plan can read.
    let oldestReadable: Int

    /// The model of `Value`, after checking that its migration plan chains up to its version.
    init<Value: Resource>(of type: Value.Type) throws(StoreError) {
        typeName = String(describing: Value.self)
        version = Value.modelVersion
        plan = Value.migrationPlan
        try plan.validate(current: version, type: typeName)
        oldestReadable = plan.oldestVersion(current: version)
    }

    /// The one model-version check: throws unless this build can read data written by
    /// `modelVersion` (found in `commit`).
    func checkReadable(_ modelVersion: Int, in commit: CommitID) throws(StoreError) {
        guard modelVersion <= version else {
            throw StoreError.unknownModelVersion(found: modelVersion, known: version, commit: commit)
        }
        guard modelVersion >= oldestReadable || modelVersion == version else {
            throw StoreError.unsupportedModelVersion(found: modelVersion, oldest: oldestReadable, commit: commit)
        }
    }
}
