import ForkStoreGit

extension StoreError {
    /// Wraps a libgit2 failure: a missing object becomes ``missingObject(id:reason:)``.
    init(_ error: GitError, during operation: String, object: String? = nil) {
        if error.code == .notFound, let object {
            self = .missingObject(id: object, reason: error.message)
        } else {
            self = .repository(operation: operation, reason: error.message)
        }
    }
}

/// Runs libgit2 work, turning its failure into a ``StoreError`` that names the operation.
/// With `object`, a missing object becomes ``StoreError/missingObject(id:reason:)``.
func git<Result>(
    _ operation: @autoclosure () -> String, object: String? = nil, _ body: () throws(GitError) -> Result
) throws(StoreError) -> Result {
    do {
        return try body()
    } catch {
        throw StoreError(error, during: operation(), object: object)
    }
}
