import Foundation

/// Whether the tests run under a sanitizer, which scripts/sanitizers.sh says through
/// `FORKSTORE_SANITIZER`: every process is then several times slower, so the soaks run smaller.
public enum Sanitizer {
    /// `ordinary` in an ordinary build, `sanitized` under a sanitizer.
    public static func scaled(_ ordinary: Int, sanitized: Int) -> Int {
        ProcessInfo.processInfo.environment["FORKSTORE_SANITIZER"] == nil ? ordinary : sanitized
    }
}
