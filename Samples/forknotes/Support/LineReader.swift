import Foundation

/// Reads a file line by line in chunks of 64 KB, so a file of any size is never held in memory
/// whole. Lines are byte arrays without their newline, numbered from 1.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false
    private var number = 0

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// The next line and its number, or nil at the end of the file.
    func next() -> (number: Int, line: [UInt8])? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                number += 1
                return (number, line)
            }
            if finished {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                number += 1
                return (number, line)
            }
            buffer.removeFirst(start)
            start = 0
            let chunk = (try? handle.read(upToCount: 65_536)) ?? nil
            if let chunk, !chunk.isEmpty { buffer += chunk } else { finished = true }
        }
    }
}
