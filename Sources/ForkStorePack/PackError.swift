/// A failure of the pack format: a pack or index that is damaged or not what it claims, a
/// limit passed, or the file system refusing a read or write.
///
/// Thrown by ForkStorePack alone; the git layer above wraps it without changing its meaning.
package struct PackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure, for callers that act on it.
    package enum Code: Sendable, Equatable {
        /// The bytes are not a valid pack, index or delta, or disagree with each other: a
        /// checksum, an id, a count, a size.
        case damaged
        /// An object or delta result larger than the limit the caller set.
        case tooLarge
        /// The file system or zlib failed (the message names the call and the system's reason).
        case system
        /// The caller asked for something the format cannot hold (a delta base that is not an
        /// earlier entry, an object written twice).
        case invalidRequest
    }

    package let code: Code
    /// The file or stream concerned, when there is one.
    package let path: String?
    package let message: String

    package init(_ code: Code, path: String? = nil, _ message: String) {
        (self.code, self.path, self.message) = (code, path, message)
    }

    package var description: String {
        path.map { "\($0): \(message)" } ?? message
    }

    static func damaged(_ path: String?, _ reason: String) -> PackError { PackError(.damaged, path: path, reason) }
}
