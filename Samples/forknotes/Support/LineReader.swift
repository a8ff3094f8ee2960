import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a text file line by line in chunks of 64 KB, holding at most one line of at most
/// `maximumLength` bytes: memory follows the longest line allowed, never the file. Lines are
/// byte arrays without their newline, numbered from 1.
///
/// Only a regular file is read. A folder, a device (`/dev/zero` never ends) or a pipe (one
/// without a writer never answers) is refused when it is opened, before a byte is read.
final class LineReader {
    /// A line from the file, or the number of a line longer than the limit, whose bytes were
    /// passed over without being kept.
    enum Line {
        case text(number: Int, bytes: [UInt8])
        case tooLong(number: Int)
    }

    /// Why the file cannot be read as lines of text.
    enum Failure: Error, CustomStringConvertible {
        case cannotOpen(path: String, reason: String)
        case notAFile(path: String, kind: String)
        case cannotRead(path: String, reason: String)
        /// A line holds a NUL byte or bytes that are not UTF-8: the file is not text.
        case notText(path: String, line: Int)

        var description: String {
            switch self {
            case .cannotOpen(let path, let reason): "Cannot read '\(path)': \(reason)."
            case .notAFile(let path, let kind): "'\(path)' is \(kind), not a file; import reads a JSON-lines file."
            case .cannotRead(let path, let reason): "Reading '\(path)' failed: \(reason)."
            case .notText(let path, let line): "Line \(line) of '\(path)' is not UTF-8 text, so the file is not JSON lines; stopped there."
            }
        }
    }

    static let chunkSize = 65_536
    let path: String
    let maximumLength: Int
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: chunkSize)
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// How far past `start` the buffer is known to hold no newline.
    private var scanned = 0
    /// Whether the line being read is over the limit and its bytes are dropped as they come.
    private var passingOver = false
    private var finished = false
    private var number = 0

    /// Opens `path` without waiting (a pipe nobody writes to would block `open` forever) and
    /// refuses anything but a regular file.
    init(path: String, maximumLength: Int) throws(Failure) {
        self.path = path
        self.maximumLength = maximumLength
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotOpen(path: path, reason: reason)
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(descriptor)
            throw .notAFile(path: path, kind: Self.describe(kind))
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The next line, or nil at the end of the file. A line over the limit is reported once
    /// its first `maximumLength + 1` bytes have come, and the rest of it is read past.
    func next() throws(Failure) -> Line? {
        while true {
            let end = buffer.count
            if let newline = Self.find(UInt8(ascii: "\n"), in: buffer[(start + scanned)..<end]) {
                let line = buffer[start..<newline]
                start = newline + 1
                scanned = 0
                if passingOver {
                    guard !Self.hasNUL(line) else { throw .notText(path: path, line: number) }
                    passingOver = false
                    continue
                }
                number += 1
                return line.count > maximumLength ? try refuse(line) : try text(line)
            }
            scanned = end - start
            if passingOver {
                // The rest of a line over the limit: dropped as it comes, once known to be text.
                if Self.hasNUL(buffer[start..<end]) { throw .notText(path: path, line: number) }
                buffer.removeAll(keepingCapacity: true)
                (start, scanned) = (0, 0)
            } else if scanned > maximumLength {
                number += 1
                passingOver = true
                let line = buffer[start..<end]
                (start, scanned) = (end, 0)
                return try refuse(line)
            }
            if finished {
                guard start < end, !passingOver else { return nil }
                let line = buffer[start..<end]
                // Nothing is left to scan: the next call must start its search at `end`.
                (start, scanned) = (end, 0)
                number += 1
                return line.count > maximumLength ? try refuse(line) : try text(line)
            }
            if start > 0 {
                // At most once per line: after this the buffer holds only the line being read.
                buffer.removeFirst(start)
                start = 0
            }
            try readChunk()
        }
    }

    private func text(_ line: ArraySlice<UInt8>) throws(Failure) -> Line {
        guard Self.isText(line) else { throw .notText(path: path, line: number) }
        return .text(number: number, bytes: Array(line))
    }

    /// A line over the limit, or a file that is not text at all (a NUL byte or bytes that are
    /// not UTF-8 among the line's first bytes).
    private func refuse(_ line: ArraySlice<UInt8>) throws(Failure) -> Line {
        let prefix = line.prefix(maximumLength)
        guard Self.isText(Self.withoutCutCharacter(prefix)) else {
            throw .notText(path: path, line: number)
        }
        return .tooLong(number: number)
    }

    private func readChunk() throws(Failure) {
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count >= 0 {
                buffer.append(contentsOf: chunk[0..<count])
                if count == 0 { finished = true }
                return
            }
            guard errno == EINTR else { throw .cannotRead(path: path, reason: String(cString: strerror(errno))) }
        }
    }

    /// Text has no NUL byte and is valid UTF-8 (checked by the standard library, at its speed).
    private static func isText(_ bytes: ArraySlice<UInt8>) -> Bool {
        !hasNUL(bytes) && String(validating: bytes, as: UTF8.self) != nil
    }

    private static func hasNUL(_ bytes: ArraySlice<UInt8>) -> Bool {
        find(0, in: bytes) != nil
    }

    /// Where `byte` first is in `bytes` (`memchr`: lines can be megabytes long).
    private static func find(_ byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        let offset = bytes.withUnsafeBytes { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base, Int32(byte), buffer.count) else { return nil }
            return UnsafeRawPointer(found) - base
        }
        return offset.map { bytes.startIndex + $0 }
    }

    /// The bytes without a last character a cut may have left incomplete (at most 3 bytes).
    private static func withoutCutCharacter(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes.endIndex - end < 3, bytes[end - 1] & 0xC0 == 0x80 { end -= 1 }
        if end > bytes.startIndex, bytes[end - 1] >= 0xC0 { end -= 1 }
        return bytes[bytes.startIndex..<end]
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a pipe"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
