import CLibGit2

/// A failed libgit2 call: which function failed, libgit2's code and class, and its message.
///
/// The message is read from libgit2's per-thread last error inside the same synchronous call
/// that failed, so it always belongs to this failure.
package struct GitError: Error, Sendable, CustomStringConvertible {
    /// The libgit2 error codes that callers act on; everything else is `.other`.
    package enum Code: Sendable, Equatable {
        case notFound
        case exists
        case ambiguous
        case invalidSpec
        case locked
        case modified
        case nonFastForward
        case authentication
        case certificate
        case other(Int32)

        init(_ raw: Int32) {
            switch raw {
            case GIT_ENOTFOUND.rawValue: self = .notFound
            case GIT_EEXISTS.rawValue: self = .exists
            case GIT_EAMBIGUOUS.rawValue: self = .ambiguous
            case GIT_EINVALIDSPEC.rawValue: self = .invalidSpec
            case GIT_ELOCKED.rawValue: self = .locked
            case GIT_EMODIFIED.rawValue: self = .modified
            case GIT_ENONFASTFORWARD.rawValue: self = .nonFastForward
            case GIT_EAUTH.rawValue: self = .authentication
            case GIT_ECERTIFICATE.rawValue: self = .certificate
            default: self = .other(raw)
            }
        }
    }

    package let code: Code
    package let rawCode: Int32
    /// libgit2's error class (`GIT_ERROR_OS`, `GIT_ERROR_ODB`, …) as a number.
    package let errorClass: Int32
    /// The libgit2 function that failed, for example `git_commit_create`.
    package let function: String
    package let message: String

    package init(function: String, rawCode: Int32, errorClass: Int32, message: String) {
        self.function = function
        self.rawCode = rawCode
        self.code = Code(rawCode)
        self.errorClass = errorClass
        self.message = message
    }

    package var description: String {
        "\(function) failed (\(rawCode)): \(message)"
    }
}

/// Calls a libgit2 function and turns a negative result into a ``GitError`` naming it.
@discardableResult
package func check(_ function: String, _ call: () -> Int32) throws(GitError) -> Int32 {
    let result = call()
    guard result < 0 else { return result }
    throw lastError(function: function, code: result)
}

/// Reads libgit2's last error for this thread. Must run right after the failing call.
package func lastError(function: String, code: Int32) -> GitError {
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
