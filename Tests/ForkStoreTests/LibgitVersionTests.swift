import ForkStoreGit
import Foundation
import Testing

/// The suite runs against more than one libgit2 (scripts/test.sh: Debian 12's 1.5.1, and 1.8.4
/// with LIBGIT2=1.8). A run that asks for a version checks that the process loaded it, so a
/// library path that falls back to the system's libgit2 cannot pass as the other version.
@Suite struct LibgitVersionTests {
    @Test func theLinkedLibgit2IsTheOneTheRunAskedFor() {
        let version = Libgit2.version
        let parts = version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3, "libgit2 reported \(version)")
        #expect(parts.first == 1 && [5, 8].contains(parts.dropFirst().first ?? 0), "ForkStore is verified on libgit2 1.5 and 1.8, not \(version)")
        if let expected = ProcessInfo.processInfo.environment["FORKSTORE_EXPECT_LIBGIT2"] {
            #expect(version.hasPrefix(expected + "."), "the run asked for libgit2 \(expected); the process loaded \(version)")
        }
    }
}
