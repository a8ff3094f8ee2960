internal import CLibGit2

// Every libgit2 call whose result says something goes through one of these helpers, so a
// failure always names its function and carries libgit2's message, read in the same
// synchronous call (libgit2 keeps the last error per thread).

/// Calls a libgit2 function and turns a negative result into a ``GitError`` naming it.
@discardableResult
func check(_ function: String, _ call: () -> Int32) throws(GitError) -> Int32 {
    let result = call()
    guard result < 0 else { return result }
    throw lastError(function: function, code: result)
}

/// Calls a libgit2 lookup: false when it reports `GIT_ENOTFOUND`, true on success; any
/// other failure throws.
func checkFound(_ function: String, _ call: () -> Int32) throws(GitError) -> Bool {
    let result = call()
    if result == GIT_ENOTFOUND.rawValue {
        git_error_clear()
        return false
    }
    guard result >= 0 else { throw lastError(function: function, code: result) }
    return true
}

/// Calls a libgit2 iterator's `next`: false when it reports `GIT_ITEROVER`, true when it
/// produced an item; any other failure throws.
func checkNext(_ function: String, _ call: () -> Int32) throws(GitError) -> Bool {
    let result = call()
    if result == GIT_ITEROVER.rawValue {
        git_error_clear()
        return false
    }
    guard result >= 0 else { throw lastError(function: function, code: result) }
    return true
}

/// Reads libgit2's last error for this thread. Must run right after the failing call.
func lastError(function: String, code: Int32) -> GitError {
    var message = "no message from libgit2"
    var errorClass: Int32 = 0
    if let last = git_error_last() {
        errorClass = last.pointee.klass
        if let text = last.pointee.message {
            message = String(cString: text).trimmingTrailingNewlines()
        }
    }
    git_error_clear()
    return GitError(function: function, rawCode: code, errorClass: errorClass, message: message)
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var result = self
        while result.last?.isNewline == true { result.removeLast() }
        return result
    }
}
