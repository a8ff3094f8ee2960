/// Calls `Mergeable` on values whose conformance is only known at run time (a store's value
/// or record type may or may not merge itself). Errors from the app's merge become
/// ``StoreError/mergeFailed(reason:)``.
enum MergeableDispatch {
    /// The value's own three-way merge, or nil when its type is not `Mergeable`.
    static func merged<Value>(_ dominant: Value, _ subordinate: Value, ancestor: Value) throws -> Value? {
        guard let mergeable = dominant as? any Mergeable else { return nil }
        return try wrapFailure { try merge(mergeable, subordinate, ancestor) } as? Value
    }

    /// The value's own two-way salvage, or nil when its type is not `Mergeable`.
    static func salvaged<Value>(_ dominant: Value, _ subordinate: Value) throws -> Value? {
        guard let mergeable = dominant as? any Mergeable else { return nil }
        return try wrapFailure { try salvage(mergeable, subordinate) } as? Value
    }

    private static func merge<M: Mergeable>(_ dominant: M, _ subordinate: Any, _ ancestor: Any) throws -> Any {
        guard let subordinate = subordinate as? M, let ancestor = ancestor as? M else { return dominant }
        return try dominant.merged(with: subordinate, ancestor: ancestor)
    }

    private static func salvage<M: Mergeable>(_ dominant: M, _ subordinate: Any) throws -> Any {
        guard let subordinate = subordinate as? M else { return dominant }
        return try dominant.salvaged(with: subordinate)
    }

    private static func wrapFailure(_ body: () throws -> Any) throws -> Any {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.mergeFailed(reason: String(describing: error))
        }
    }
}
