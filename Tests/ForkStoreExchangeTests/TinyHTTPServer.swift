import Foundation
import ForkStoreLocks
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on a loopback address, answering every request with what `respond`
/// returns and remembering the requests: for hostile-server tests (redirects, echoed secrets)
/// that a real web server cannot be talked into.
final class TinyHTTPServer: Sendable {
    struct Request: Sendable {
        var requestLine: String
        var headers: [String: String]
        /// The body, read whole (by its length, or chunk by chunk) before the server answers.
        var body: [UInt8] = []
        var authorization: String? { headers["authorization"] }
    }

    let host: String
    let port: Int
    private let listener: Int32
    private let received = Locked<[Request]>([])
    private let respond: @Sendable (Request) -> String
    private let trickle: @Sendable (Request) -> Duration

    /// Listens on `host` (any 127.x.y.z address) at a free port. `trickle` says how long to
    /// wait after each byte of the answer to a request (zero: send it whole): a slow server.
    init(
        host: String = "127.0.0.1", trickle: @escaping @Sendable (Request) -> Duration = { _ in .zero },
        respond: @escaping @Sendable (Request) -> String
    ) throws {
        self.host = host
        self.respond = respond
        self.trickle = trickle
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Every request received so far.
    var requests: [Request] { received.withLock { $0 } }

    /// The base URL: `http://host:port`.
    var url: String { "http://\(host):\(port)" }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var data: [UInt8] = []
            func readMore() -> Bool {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { return false }
                data += buffer[0..<count]
                return true
            }
            let separator = Array("\r\n\r\n".utf8)
            var headerEnd: Int?
            while headerEnd == nil {
                headerEnd = data.indices.first { data[$0...].starts(with: separator) }
                if headerEnd == nil, !readMore() { break }
            }
            let text = String(decoding: data[..<(headerEnd ?? data.count)], as: UTF8.self)
            let lines = text.components(separatedBy: "\r\n")
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            var body = headerEnd.map { Array(data[($0 + 4)...]) } ?? []
            if headers["transfer-encoding"]?.lowercased() == "chunked" {
                let last = Array("0\r\n\r\n".utf8)
                while !body.suffix(last.count).elementsEqual(last), readMore() { body = Array(data[((headerEnd ?? 0) + 4)...]) }
                body = Self.unchunked(body)
            } else if let length = headers["content-length"].flatMap({ Int($0) }) {
                while body.count < length, readMore() { body = Array(data[((headerEnd ?? 0) + 4)...]) }
            }
            let request = Request(requestLine: lines.first ?? "", headers: headers, body: body)
            received.withLock { $0.append(request) }
            let response = Array(respond(request).utf8)
            let pause = trickle(request)
            // MSG_NOSIGNAL: a client that stops reading (a refused body) must not kill the
            // test process with SIGPIPE.
            var offset = 0
            while offset < response.count {
                let step = pause > .zero ? 1 : response.count - offset
                let sent = response.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { send(connection, $0 + offset, step, Int32(MSG_NOSIGNAL)) } ?? -1
                }
                guard sent > 0 else { break }
                offset += sent
                if pause > .zero { Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds)) }
            }
            close(connection)
        }
    }

    /// A chunked body's data, its chunk lengths and line ends removed.
    private static func unchunked(_ body: [UInt8]) -> [UInt8] {
        var data: [UInt8] = [], cursor = 0
        while let lineEnd = body[cursor...].firstIndex(of: 0x0D),
            let length = Int(String(decoding: body[cursor..<lineEnd], as: UTF8.self), radix: 16), length > 0,
            lineEnd + 2 + length <= body.count
        {
            data += body[(lineEnd + 2)..<(lineEnd + 2 + length)]
            cursor = lineEnd + 2 + length + 2
            guard cursor < body.count else { break }
        }
        return data
    }

    /// A complete response with `status`, extra header lines and a body.
    static func response(_ status: String, headers: [String] = [], body: String = "") -> String {
        (["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    /// A git pkt-line: four hex digits of length, then the payload.
    static func packetLine(_ payload: String) -> String {
        String(format: "%04x", payload.utf8.count + 4) + payload
    }
}
