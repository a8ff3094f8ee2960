import Foundation
import ForkStoreLocks
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who writes a store's commits, and when: the store's replica id and its hybrid logical
/// clock.
///
/// The clock issues readings in increasing order for the life of the engine, each past the
/// clocks of the commits a new commit builds on, so a commit is later than everything it has
/// seen. A commit whose clock runs more than ``StoreOptions/maximumClockSkew`` ahead of this
/// machine's wall clock counts as that far ahead only, and the commit that builds on it says
/// so in a `Clock-Clamped` trailer: one replica with a wrong clock cannot push every other
/// replica's clock into the future, nor hold it still for longer than the skew.
final class StoreClock: Sendable {
    private let gitDirectory: String
    private let knownReplica = Locked<String?>(nil)
    private let wallClock: @Sendable () -> Date
    private let maximumSkew: Int64
    /// The last reading issued; nil until the first write sets it from the fork heads.
    private let lastIssued = Locked<HybridTime?>(nil)

    init(gitDirectory: String, options: StoreOptions) {
        self.gitDirectory = gitDirectory
        self.wallClock = options.wallClock
        let (seconds, attoseconds) = options.maximumClockSkew.components
        self.maximumSkew = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// This store's replica id: 16 lowercase hex digits, read (or made) when a commit first
    /// needs it, so that a process that only reads never writes it.
    var replica: String {
        get throws(StoreError) {
            try knownReplica.withLock { (known) throws(StoreError) -> String in
                if let known { return known }
                let replica = try Self.replica(gitDirectory: gitDirectory)
                known = replica
                return replica
            }
        }
    }

    /// The wall clock now, in milliseconds since 1970.
    var now: Int64 { Int64((wallClock().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A reading for a commit on top of `parents`, and the parents whose clocks were too far
    /// ahead to follow. `heads` gives every fork head's commit, read once to start the clock
    /// where the store left it.
    func next(after parents: [Commit], heads: () throws -> [Commit]) rethrows -> (clock: HybridTime, clamped: [Commit]) {
        let now = self.now
        let limit = now > Int64.max - maximumSkew ? Int64.max : now + maximumSkew
        func bounded(_ clock: HybridTime) -> HybridTime {
            clock.milliseconds > limit ? HybridTime(milliseconds: limit) : clock
        }
        let start = try lastIssued.withLock { $0 } ?? heads().map { bounded($0.clock) }.max() ?? HybridTime(milliseconds: 0)
        var floor = start
        var clamped: [Commit] = []
        for parent in parents {
            if parent.clock.milliseconds > limit { clamped.append(parent) }
            floor = max(floor, bounded(parent.clock))
        }
        let clock = lastIssued.withLock { last in
            let next = max(floor, last ?? floor).tick(now: now)
            last = next
            return next
        }
        return (clock, clamped)
    }

    /// The replica id kept in the store's git directory (never in a commit, so never synced),
    /// made on first use. Two processes racing to make it agree on the one that landed.
    static func replica(gitDirectory: String) throws(StoreError) -> String {
        let path = (gitDirectory as NSString).appendingPathComponent(fileName)
        for _ in 0..<3 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if isValid(id) { return id }
                try? FileManager.default.removeItem(atPath: path)  // damaged: make a new one
            }
            let id = (0..<16).map { _ in String(UInt8.random(in: 0..<16), radix: 16) }.joined()
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                let bytes = Array((id + "\n").utf8)
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
                if written == bytes.count { return id }
                try? FileManager.default.removeItem(atPath: path)
            } else if errno != EEXIST {
                throw StoreError.fileSystem(path: path, errno: errno)
            }
        }
        throw StoreError.fileSystem(path: path, reason: "could not make the replica id")
    }

    static let fileName = "forkstore-replica"

    static func isValid(_ id: String) -> Bool {
        id.utf8.count == 16 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
