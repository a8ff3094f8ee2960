import Foundation

/// A fetched pack as it arrives, copied to a file of its own so that it can be read while the
/// fetch goes on (``ArrivingPackReader``): its bytes, and where each entry that arrived whole
/// lies. The fetch's thread writes it (after ``IncomingPackCheck`` took the same bytes); one
/// reader follows it on another.
///
/// Nothing here is trusted: the entries are where the check found them, their bytes are what
/// the remote sent. A copy that cannot be written (a full disk) just stops growing: reading
/// ahead is a head start, never a step the fetch depends on.
package final class ArrivingPack: @unchecked Sendable {
    package let path: String
    private let writer: Int32
    private let reader: Int32
    /// Guards everything below; readers wait on it for entries.
    private let condition = NSCondition()
    private var written = 0
    /// Entries that arrived whole, in pack order: where each starts and ends.
    private var entries: [Range<Int>] = []
    /// Entries the check found in bytes not yet written to the copy.
    private var unwritten: [Range<Int>] = []
    /// The pack ended whole: no more entries will come.
    private var hasEnded = false
    /// The reading should stop: the fetch is over, or the copy could not be written.
    private var isStoppedNow = false

    /// A new copy at `path` (replacing one a killed process left there).
    package init(path: String) throws(PackError) {
        let writer = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard writer >= 0 else { throw PackError(.system, path: path, "cannot be created (errno \(errno))") }
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else {
            close(writer)
            throw PackError(.system, path: path, "cannot be read (errno \(errno))")
        }
        (self.path, self.writer, self.reader) = (path, writer, reader)
    }

    deinit {
        stop()
        close(writer)
        close(reader)
    }

    /// Notes an entry the check found whole in bytes about to be written (``write(_:)``).
    package func entryArrived(_ entry: Range<Int>) {
        condition.withLock { unwritten.append(entry) }
    }

    /// Writes the next bytes of the pack to the copy, then tells readers of the entries that
    /// are now whole in it.
    package func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, condition.withLock({ !isStoppedNow && !hasEnded }) else { return }
        var done = 0
        while done < bytes.count {
            let count = Foundation.write(writer, start + done, bytes.count - done)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return stop() }
            done += count
        }
        condition.withLock {
            written += bytes.count
            entries.append(contentsOf: unwritten)
            unwritten.removeAll(keepingCapacity: true)
            condition.broadcast()
        }
    }

    /// Says that the pack ended whole: a reader reads the entries that came, then returns.
    package func complete() {
        condition.withLock {
            hasEnded = true
            condition.broadcast()
        }
    }

    /// Stops the reading at the next entry (the fetch is over, and what is left is read from
    /// the indexed pack on every core), and removes the copy: its name, and its bytes at once,
    /// though the reader may still hold it open.
    package func stop() {
        condition.withLock {
            if !isStoppedNow {
                unlink(path)
                _ = ftruncate(writer, 0)
            }
            isStoppedNow = true
            condition.broadcast()
        }
    }

    /// The entries from number `first` on that have arrived (a copy: the fetch goes on
    /// adding), waiting for one when none has yet; nil once the reading stopped, or the pack is
    /// complete and none is left from `first`.
    func entries(from first: Int) -> [Range<Int>]? {
        condition.withLock {
            while entries.count <= first && !hasEnded && !isStoppedNow { condition.wait() }
            return entries.count > first && !isStoppedNow ? Array(entries[first...]) : nil
        }
    }

    /// Whether the reading should stop now.
    var isStopped: Bool { condition.withLock { isStoppedNow } }

    /// Whether the whole pack arrived, and the reading was not stopped.
    var isComplete: Bool { condition.withLock { hasEnded && !isStoppedNow } }

    /// The bytes of `range` of the copy, which must have been written; nil when they cannot
    /// be read.
    func bytes(in range: Range<Int>) -> [UInt8]? {
        guard range.lowerBound >= 0, condition.withLock({ range.upperBound <= written }) else { return nil }
        var bytes = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let count = bytes.withUnsafeMutableBytes { target in
                target.baseAddress.map { pread(reader, $0 + done, range.count - done, off_t(range.lowerBound + done)) } ?? -1
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        return bytes
    }
}
