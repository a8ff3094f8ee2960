internal import CLibGit2

/// A failure of the git layer: a failed libgit2 call (which function failed, libgit2's code and
/// class, and its message), or a failure of the pack format (``pack``), carried unchanged.
///
/// A libgit2 message is read from libgit2's per-thread last error inside the same synchronous
/// call that failed, so it always belongs to this failure.
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

    /// The part of libgit2 that failed (its error class), for callers that sort failures.
    package enum Category: Sendable, Equatable {
        /// The operating system: a file, a socket, a process.
        case os
        /// The network layer: connecting, the git protocol, a server's error line.
        case network
        /// The ssh transport (libssh2).
        case ssh
        /// The smart HTTP transport.
        case http
        /// TLS.
        case tls
        /// Reading or indexing object data: a pack, zlib, the object database.
        case objectData
        /// References.
        case reference
        /// A callback of ours asked to stop.
        case callback
        /// Anything else.
        case other

        init(_ errorClass: Int32) {
            switch UInt32(bitPattern: errorClass) {
            case GIT_ERROR_OS.rawValue: self = .os
            case GIT_ERROR_NET.rawValue: self = .network
            case GIT_ERROR_SSH.rawValue: self = .ssh
            case GIT_ERROR_HTTP.rawValue: self = .http
            case GIT_ERROR_SSL.rawValue: self = .tls
            case GIT_ERROR_ZLIB.rawValue, GIT_ERROR_ODB.rawValue, GIT_ERROR_INDEXER.rawValue, GIT_ERROR_OBJECT.rawValue:
                self = .objectData
            case GIT_ERROR_REFERENCE.rawValue: self = .reference
            case GIT_ERROR_CALLBACK.rawValue: self = .callback
            default: self = .other
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
    /// The pack format's failure, when the pack format (not libgit2) failed; ``function`` then
    /// names the operation.
    package let pack: PackError?

    package init(function: String, rawCode: Int32, errorClass: Int32, message: String) {
        self.function = function
        self.rawCode = rawCode
        self.code = Code(rawCode)
        self.errorClass = errorClass
        self.message = message
        pack = nil
    }

    /// A failure of the pack format during `operation`: damaged data counts as object data,
    /// a refused system call as the operating system's.
    package init(_ error: PackError, during operation: String) {
        function = operation
        rawCode = -1
        code = .other(-1)
        errorClass = Int32(bitPattern: error.code == .system ? GIT_ERROR_OS.rawValue : GIT_ERROR_ODB.rawValue)
        message = error.description
        pack = error
    }

    /// libgit2's class for the network layer, for failures of the wire read here.
    package static let networkClass = Int32(bitPattern: GIT_ERROR_NET.rawValue)

    /// The part of libgit2 that failed.
    package var category: Category { Category(errorClass) }

    /// The same failure with another message (the server's explanation added, a secret removed).
    package func with(message: String) -> GitError {
        if let pack { return GitError(PackError(pack.code, path: pack.path, message), during: function) }
        return GitError(function: function, rawCode: rawCode, errorClass: errorClass, message: message)
    }

    package var description: String {
        pack == nil ? "\(function) failed (\(rawCode)): \(message)" : "\(function) failed: \(message)"
    }
}

/// Runs pack-format work during `operation`, carrying its failure as a ``GitError``.
func packing<Result>(_ operation: String, _ body: () throws(PackError) -> Result) throws(GitError) -> Result {
    do { return try body() } catch { throw GitError(error, during: operation) }
}
