import ForkStoreGit

extension StoreError {
    /// Wraps a libgit2 failure during `operation`, keeping libgit2's error code: a missing
    /// object becomes ``missingObject(id:reason:)``, anything else
    /// ``repository(operation:reason:underlyingCode:)``. A failure of our own pack format has
    /// no libgit2 code.
    init(_ error: GitError, during operation: String, object: String? = nil) {
        let underlyingCode = error.pack == nil ? error.rawCode : nil
        if error.code == .notFound, let object {
            self = .missingObject(id: object, reason: error.message, operation: operation, underlyingCode: underlyingCode)
        } else {
            self = .repository(operation: operation, reason: error.message, underlyingCode: underlyingCode)
        }
    }
}

/// Runs libgit2 work, turning its failure into a ``StoreError`` that names the operation.
/// With `object`, a missing object becomes ``StoreError/missingObject(id:reason:)``. Both are
/// made only on failure: a listing reads a blob per record, each named by its hex id.
func git<Result>(
    _ operation: @autoclosure () -> String, object: @autoclosure () -> String? = nil, _ body: () throws(GitError) -> Result
) throws(StoreError) -> Result {
    do {
        return try body()
    } catch {
        throw StoreError(error, during: operation(), object: object())
    }
}
