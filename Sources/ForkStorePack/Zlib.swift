internal import CZlib

/// One zlib deflate stream, reset between inputs: `compress2` sets up (and allocates, about
/// 256 KB) a new stream for every object, which cost more than compressing a small one.
package final class Deflater {
    private var stream = z_stream()

    /// A stream compressing at `level`: ``fastest`` or ``standard``.
    package init(level: Level) throws(PackError) {
        let status = deflateInit_(&stream, level.rawValue, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw PackError(.system, "zlib could not start a deflate stream (\(status))") }
    }

    /// zlib's compression levels that packs use.
    package enum Level: Int32, Sendable {
        /// zlib's fastest, for data that hardly compresses (trees: mostly hashes), as git writes
        /// loose objects.
        case fastest = 1
        /// zlib's default.
        case standard = -1
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `bytes` as one zlib stream into `output` (grown as needed); returns its length.
    package func compress(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(PackError) -> Int {
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        deflateReset(&stream)
        let status = output.withUnsafeMutableBytes { target -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(bytes.count)
            stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(target.count)
            return deflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else { throw PackError(.system, "zlib could not compress an object (\(status))") }
        return Int(stream.total_out)
    }
}

/// One zlib inflate stream, reset between inputs, that never produces more than the caller
/// expects: an entry's header gives the inflated size, so a stream that would grow past it
/// is refused before it takes memory.
package final class Inflater {
    fileprivate var stream = z_stream()

    package init() throws(PackError) {
        let status = inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw PackError(.system, "zlib could not start an inflate stream (\(status))") }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates the zlib stream at the start of `compressed`, which must hold exactly `size`
    /// bytes; returns them and how many compressed bytes the stream took. Refuses a stream
    /// that ends early, runs past `compressed` or holds more than `size` bytes.
    package func inflate(_ compressed: UnsafeRawBufferPointer, size: Int) throws(PackError) -> (bytes: [UInt8], consumed: Int) {
        guard size <= Int(UInt32.max) else { throw PackError(.tooLarge, "an object of \(size) bytes") }
        inflateReset(&stream)
        // One byte more than expected, so a stream that holds more is seen.
        var output = [UInt8](repeating: 0, count: size + 1)
        let status = output.withUnsafeMutableBytes { target -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: compressed.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(clamping: compressed.count)
            stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(target.count)
            return CZlib.inflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else {
            throw .damaged(nil, status == Z_BUF_ERROR || status == Z_OK ? "compressed data is cut short or longer than its header says" : "compressed data is damaged (zlib \(status))")
        }
        guard Int(stream.total_out) == size else {
            throw .damaged(nil, "compressed data holds \(stream.total_out) bytes, not the \(size) its header says")
        }
        output.removeLast()
        return (output, Int(stream.total_in))
    }
}

extension Inflater {
    /// The first `count` bytes of the zlib stream at the start of `compressed` (fewer when it
    /// holds fewer), inflating no more of it than that takes.
    package func inflatePrefix(_ compressed: UnsafeRawBufferPointer, count: Int) throws(PackError) -> [UInt8] {
        inflateReset(&stream)
        var output = [UInt8](repeating: 0, count: count)
        let (status, made) = output.withUnsafeMutableBytes { target -> (Int32, Int) in
            stream.next_in = UnsafeMutablePointer(mutating: compressed.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(clamping: compressed.count)
            stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(target.count)
            let status = CZlib.inflate(&stream, Z_SYNC_FLUSH)
            return (status, target.count - Int(stream.avail_out))
        }
        guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && made == count) else {
            throw .damaged(nil, "compressed data is damaged (zlib \(status))")
        }
        return Array(output.prefix(made))
    }
}

/// The CRC-32 of `bytes`, as a pack index keeps it for each entry.
package func crc32(of bytes: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(crc32(0, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
}

/// One zlib inflate stream fed in parts as they arrive (a pack over the network), whose output
/// passes through a small window and is handed on piece by piece, never kept whole: what it
/// costs in memory does not depend on what the stream holds.
package final class StreamingInflater {
    private var stream = z_stream()
    private var window = [UInt8](repeating: 0, count: 64 << 10)

    package init() throws(PackError) {
        let status = inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw PackError(.system, "zlib could not start an inflate stream (\(status))") }
    }

    deinit { inflateEnd(&stream) }

    /// Starts a new stream.
    package func reset() { inflateReset(&stream) }

    /// Inflates what it can of `input`, handing each piece of output to `output` as it is made;
    /// returns how many bytes of `input` it took, and whether the stream ended (the rest of
    /// `input` follows it).
    package func feed(
        _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (consumed: Int, finished: Bool) {
        guard let base = input.baseAddress, !input.isEmpty else { return (0, false) }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(clamping: input.count)
        let offered = Int(stream.avail_in)
        while true {
            let (status, made) = window.withUnsafeMutableBytes { target -> (Int32, Int) in
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                return (status, target.count - Int(stream.avail_out))
            }
            if made > 0 { try window.withUnsafeBytes { try output(UnsafeRawBufferPointer(rebasing: $0[..<made])) } }
            let consumed = offered - Int(stream.avail_in)
            switch status {
            case Z_STREAM_END: return (consumed, true)
            case Z_OK where stream.avail_in > 0 || made == window.count: continue
            case Z_OK, Z_BUF_ERROR: return (consumed, false)  // all input taken: wait for more
            default: throw PackError.damaged(nil, "compressed data is damaged (zlib \(status))")
            }
        }
    }
}
