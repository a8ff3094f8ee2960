internal import CCurl
import ForkStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What curl's callbacks read and write during one request: the body being sent, the
/// response's status, headers and body, and why a callback stopped the transfer. Reached from
/// the C callbacks below through curl's `*DATA` pointers, on the thread running the request.
final class HTTPTransferState {
    private let sink: HTTPResponseBody
    private let isCancelled: () -> Bool
    private let progress: (HTTPProgress) -> Void

    /// The status of the response being received (its status line, read by the header
    /// callback; a 100 Continue is followed by the real one).
    private(set) var status = 0
    private(set) var headers: [HTTPHeader] = []
    private var headerBytes = 0
    /// A 2xx body collected, or the start of another status's body.
    private(set) var collected: [UInt8] = []
    /// Bytes of a 2xx body taken.
    private(set) var bodyBytes = 0
    /// Bytes of a non-2xx body read (most dropped).
    private var errorBodyBytes = 0
    /// Why a callback stopped the transfer; thrown instead of curl's own code for it.
    private(set) var failure: HTTPFailure?
    /// The most a 2xx body may hold: the sink's, or for a resumed download what its status
    /// and Content-Range leave (set when the headers end).
    private var limit: Int
    /// Where a resumed download's body starts in its file.
    private(set) var resumedFrom = 0
    /// Whether the sink was readied for the current response's 2xx body.
    private var bodyStarted = false

    /// Pieces of a body for a file, not yet written (at most ``writeBufferSize`` bytes).
    private var pending: [UInt8] = []

    // The request body.
    private var bytes: [UInt8] = []
    private var sent = 0
    private var source: (descriptor: Int32, path: String, size: Int)?
    /// The id the file sent must hash to, and the hash of what was read of it so far.
    private var check: (id: AssetID, hasher: AssetHasher)?

    init(sink: HTTPResponseBody, isCancelled: @escaping () -> Bool, progress: @escaping (HTTPProgress) -> Void) {
        self.sink = sink
        limit = sink.maximum
        self.isCancelled = isCancelled
        self.progress = progress
    }

    /// The most header bytes one response may have: 256 KiB (curl refuses one line over 100 KiB).
    static let headerLimit = 256 << 10

    // MARK: Request body

    func openSource(_ body: HTTPRequest.Body) throws(HTTPFailure) {
        switch body {
        case .none: break
        case .bytes(let bytes): self.bytes = bytes
        case .file(let path, let size, let id):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw HTTPFailure.localFile(path: path, errno: errno) }
            source = (descriptor, path, size)
            check = id.map { ($0, AssetHasher()) }
        }
    }

    func closeSource() {
        if let source { close(source.descriptor) }
        source = nil
    }

    /// Fills curl's buffer with the next piece of the body; 0 at its end.
    fileprivate func send(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if isCancelled() { return stop(.cancelled, returning: forkstore_curl_readfunc_abort()) }
        guard let base = buffer.baseAddress else { return 0 }
        if let source {
            let wanted = min(buffer.count, source.size - sent)
            guard wanted > 0 else { return 0 }
            while true {
                let count = read(source.descriptor, base, wanted)
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else {
                    return stop(.localFile(path: source.path, errno: errno), returning: forkstore_curl_readfunc_abort())
                }
                guard count > 0 else {
                    return stop(
                        .transport(reason: "\(source.path) ended after \(sent) of its \(source.size) bytes while it was sent"),
                        returning: forkstore_curl_readfunc_abort())
                }
                sent += count
                check?.hasher.update(UnsafeRawBufferPointer(start: base, count: count))
                // The last piece is held back when the whole does not hash right: the server
                // never gets a complete body to keep.
                if sent == source.size, let check, case let found = check.hasher.finish(), found != check.id {
                    return stop(
                        .localFileCorrupt(path: source.path, reason: "its bytes hash to \(found), not \(check.id)"),
                        returning: forkstore_curl_readfunc_abort())
                }
                return count
            }
        }
        let count = min(buffer.count, bytes.count - sent)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { whole in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: whole[sent..<(sent + count)]))
        }
        sent += count
        return count
    }

    // MARK: Response

    /// Reads one header line: a status line starts a new response (after a 100 Continue).
    fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
        headerBytes += line.count
        guard headerBytes <= Self.headerLimit else {
            return stop(.transport(reason: "the response's headers passed \(Self.headerLimit) bytes"), returning: 0)
        }
        var text = String(decoding: line, as: UTF8.self)
        while text.last?.isNewline == true { text.removeLast() }  // "\r\n" is one Character
        if text.isEmpty {
            // The end of a response's headers: a 2xx body starts next (maybe empty).
            if (200..<300).contains(status), !startBody() { return 0 }
        } else if text.hasPrefix("HTTP/") {
            let fields = text.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers = []
            bodyStarted = false
        } else if let colon = text.firstIndex(of: ":"),
            let header = HTTPHeader(
                String(text[..<colon]), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        {
            headers.append(header)
        }
        return line.count
    }

    /// Takes a piece of the body: a 2xx body goes to the sink, up to its limit; another
    /// status's is kept for its message, up to a limit, and dropped beyond.
    fileprivate func receiveBody(_ piece: UnsafeRawBufferPointer) -> Int {
        guard (200..<300).contains(status) else {
            errorBodyBytes += piece.count
            guard errorBodyBytes <= HTTPResponse.errorBodyReadLimit else {
                return stop(
                    .transport(reason: "the body of a \(status) answer passed \(HTTPResponse.errorBodyReadLimit) bytes"), returning: 0)
            }
            collected.append(contentsOf: piece.prefix(max(0, HTTPResponse.errorBodyLimit - collected.count)))
            return piece.count
        }
        guard startBody() else { return 0 }
        guard bodyBytes + piece.count <= limit else { return stop(.tooLarge(limit: limit), returning: 0) }
        switch sink {
        case .collect:
            collected.append(contentsOf: piece)
        case .file, .resume:
            // Pieces gather in memory and go to the file a buffer at a time: curl hands over
            // each chunk of a chunked body apart (giftless's are lines, ~250 bytes).
            if pending.count + piece.count > Self.writeBufferSize {
                guard flushBody() else { return 0 }
            }
            if piece.count >= Self.writeBufferSize {
                guard writeToSink(piece) else { return 0 }
            } else {
                if pending.capacity < Self.writeBufferSize { pending.reserveCapacity(Self.writeBufferSize) }
                pending.append(contentsOf: piece)
            }
        }
        bodyBytes += piece.count
        return piece.count
    }

    /// How much of a body waits in memory before it is written to the file: 256 KiB.
    static let writeBufferSize = 256 << 10

    /// Writes what waits in memory to the sink's file; false (with ``failure`` set) when the
    /// file refuses it. Called as the buffer fills and once the request ends, however it ended,
    /// so what arrived is in the file for a later download to resume from.
    @discardableResult
    func flushBody() -> Bool {
        guard !pending.isEmpty else { return true }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending.withUnsafeBytes { writeToSink($0) }
    }

    private func writeToSink(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch sink {
        case .collect:
            return true
        case .file(let descriptor, let path, _), .resume(let descriptor, let path, _, _):
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return stop(.localFile(path: path, errno: errno), returning: false) }
                offset += written
            }
            return true
        }
    }

    /// Readies the sink for a 2xx body once its headers are in (once a response): for a resumed download, takes
    /// a 206 from where the file ends or starts the file again; false when the response is
    /// refused.
    private func startBody() -> Bool {
        guard !bodyStarted else { return failure == nil }
        bodyStarted = true
        guard case .resume(let descriptor, let path, let from, let size) = sink else { return true }
        var start = 0
        if status == 206 {
            let range = headers.first { $0.name.lowercased() == "content-range" }?.value ?? ""
            guard let served = Self.contentRange(range), served.first == from, served.last == size - 1,
                served.total == nil || served.total == size
            else {
                return stop(
                    .refusedResponse(
                        reason: "a partial answer (206) with Content-Range '\(range.prefix(100))' where bytes \(from)-\(size - 1) of \(size) were asked for"),
                    returning: false)
            }
            start = from
        } else if ftruncate(descriptor, 0) != 0 {
            return stop(.localFile(path: path, errno: errno), returning: false)
        }
        guard lseek(descriptor, off_t(start), SEEK_SET) == off_t(start) else {
            return stop(.localFile(path: path, errno: errno), returning: false)
        }
        resumedFrom = start
        limit = size - start
        return true
    }

    /// `bytes FIRST-LAST/TOTAL` (TOTAL may be `*`, read as nil); nil for anything else.
    static func contentRange(_ value: String) -> (first: Int, last: Int, total: Int?)? {
        guard value.hasPrefix("bytes "), let dash = value.firstIndex(of: "-"), let slash = value.firstIndex(of: "/"),
            dash < slash
        else { return nil }
        let digits = { (text: Substring) -> Int? in
            text.utf8.allSatisfy({ (48...57).contains($0) }) && (1...18).contains(text.utf8.count) ? Int(text) : nil
        }
        guard let first = digits(value[value.index(value.startIndex, offsetBy: 6)..<dash]),
            let last = digits(value[value.index(after: dash)..<slash]), first <= last
        else { return nil }
        let totalText = value[value.index(after: slash)...]
        if totalText == "*" { return (first, last, nil) }
        guard let total = digits(totalText), last < total else { return nil }
        return (first, last, total)
    }

    fileprivate func moved(sent: Int, received: Int) -> Int32 {
        if isCancelled() { return stop(.cancelled, returning: 1) }
        progress(HTTPProgress(sent: sent, received: received, resumedFrom: resumedFrom))
        return 0
    }

    private func stop<Result>(_ failure: HTTPFailure, returning result: Result) -> Result {
        if self.failure == nil { self.failure = failure }
        return result
    }
}

// The C callbacks: each finds its request's state from the pointer curl hands back.

private func state(_ pointer: UnsafeMutableRawPointer?) -> HTTPTransferState? {
    pointer.map { Unmanaged<HTTPTransferState>.fromOpaque($0).takeUnretainedValue() }
}

let httpReceiveBody: curl_write_callback = { data, size, count, context in
    guard let state = state(context) else { return 0 }
    return state.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

let httpReceiveHeader: curl_write_callback = { data, size, count, context in
    guard let state = state(context) else { return 0 }
    return state.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
}

let httpSendBody: curl_read_callback = { buffer, size, count, context in
    guard let state = state(context) else { return forkstore_curl_readfunc_abort() }
    return state.send(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

let httpProgress: curl_xferinfo_callback = { context, _, received, _, sent in
    guard let state = state(context) else { return 1 }
    return state.moved(sent: Int(sent), received: Int(received))
}
