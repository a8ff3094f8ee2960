internal import CLibGit2
import Foundation
import ForkStoreLocks
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a connection may take to open, and how long a read or write may wait for the
/// other end, before the transfer fails as unreachable.
package struct NetworkTimeouts: Sendable, Equatable {
    package var connect: Duration
    package var io: Duration

    package init(connect: Duration = .seconds(10), io: Duration = .seconds(60)) {
        self.connect = connect
        self.io = io
    }
}

/// The TCP stream libgit2 uses for every connection it opens (`git://`, `http://`, under TLS
/// for `https://`, and under libssh2 for `ssh://`), registered in place of its own: it sets
/// `TCP_NODELAY`, since libgit2 writes requests and packs in many small sends that Nagle's
/// algorithm would hold back until the server's delayed acknowledgement (~40 ms each time),
/// and it honours a connect timeout and a read/write timeout, which libgit2 1.5 lacks (a host
/// that drops packets would hold a sync for the system's TCP timeout, minutes).
///
/// libgit2 creates a stream on the thread that started the transfer, so the timeouts are
/// per thread: ``withTimeouts(_:_:)`` sets them around one fetch or push.
enum SocketStream {
    private static let registered: Result<Void, GitError> = Result { () throws(GitError) in
        var registration = git_stream_registration()
        registration.version = GIT_STREAM_VERSION
        registration.`init` = { out, host, port in
            guard let out, let host, let port else { return -1 }
            return SocketStream.create(out, host: host, port: port)
        }
        registration.wrap = nil
        try check("git_stream_register") { git_stream_register(GIT_STREAM_STANDARD, &registration) }
    }

    /// The timeouts of transfers running on each thread.
    private static let timeoutsByThread = Locked<[UInt: NetworkTimeouts]>([:])

    /// Registers the stream with libgit2, once per process.
    static func ensureRegistered() throws(GitError) {
        try registered.get()
    }

    /// Runs `body` (one fetch or push) with `timeouts` for the connections it opens.
    static func withTimeouts<Result>(_ timeouts: NetworkTimeouts, _ body: () throws(GitError) -> Result) throws(GitError) -> Result {
        try ensureRegistered()
        let thread = currentThread()
        timeoutsByThread.withLock { $0[thread] = timeouts }
        defer { _ = timeoutsByThread.withLock { $0.removeValue(forKey: thread) } }
        return try body()
    }

    private static func currentTimeouts() -> NetworkTimeouts {
        let thread = currentThread()
        return timeoutsByThread.withLock { $0[thread] } ?? NetworkTimeouts()
    }

    private static func currentThread() -> UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    private static func create(_ out: UnsafeMutablePointer<UnsafeMutablePointer<git_stream>?>, host: UnsafePointer<CChar>, port: UnsafePointer<CChar>) -> Int32 {
        guard let raw = calloc(1, MemoryLayout<forkstore_socket_stream>.size) else {
            git_error_set_str(Int32(GIT_ERROR_NOMEMORY.rawValue), "out of memory")
            return -1
        }
        let stream = raw.bindMemory(to: forkstore_socket_stream.self, capacity: 1)
        let timeouts = currentTimeouts()
        stream.pointee.descriptor = -1
        stream.pointee.connect_timeout_ms = milliseconds(timeouts.connect)
        stream.pointee.io_timeout_ms = milliseconds(timeouts.io)
        stream.pointee.host = strdup(host)
        stream.pointee.port = strdup(port)
        stream.pointee.parent.version = GIT_STREAM_VERSION
        stream.pointee.parent.encrypted = 0
        stream.pointee.parent.proxy_support = 0
        stream.pointee.parent.connect = { stream in
            guard let ours = SocketStream.ours(stream) else { return -1 }
            return SocketStream.connect(ours)
        }
        stream.pointee.parent.read = { stream, buffer, length in
            guard let ours = SocketStream.ours(stream) else { return -1 }
            return SocketStream.read(ours, buffer, length)
        }
        stream.pointee.parent.write = { stream, data, length, _ in
            guard let ours = SocketStream.ours(stream) else { return -1 }
            return SocketStream.write(ours, data, length)
        }
        stream.pointee.parent.close = { stream in
            guard let ours = SocketStream.ours(stream) else { return 0 }
            SocketStream.closeSocket(ours)
            return 0
        }
        stream.pointee.parent.free = { stream in
            guard let ours = SocketStream.ours(stream) else { return }
            SocketStream.closeSocket(ours)
            free(ours.pointee.host)
            free(ours.pointee.port)
            free(ours)
        }
        out.pointee = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: git_stream.self)
        return 0
    }

    /// The stream `create` made, whose first member is the `git_stream` libgit2 hands back.
    private static func ours(_ stream: UnsafeMutablePointer<git_stream>?) -> UnsafeMutablePointer<forkstore_socket_stream>? {
        stream.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: forkstore_socket_stream.self) }
    }

    private static func closeSocket(_ stream: UnsafeMutablePointer<forkstore_socket_stream>) {
        if stream.pointee.descriptor >= 0 { close(stream.pointee.descriptor) }
        stream.pointee.descriptor = -1
    }

    private static func fail(_ message: String, errorClass: git_error_t = GIT_ERROR_NET) -> Int32 {
        git_error_set_str(Int32(errorClass.rawValue), message)
        return -1
    }

    private static func connect(_ stream: UnsafeMutablePointer<forkstore_socket_stream>) -> Int32 {
        let host = String(cString: stream.pointee.host), port = String(cString: stream.pointee.port)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, port, &hints, &list)
        guard resolved == 0 else {
            return fail("failed to resolve address for \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        let deadline = ContinuousClock.now + .milliseconds(Int(stream.pointee.connect_timeout_ms))
        var lastError = "no address"
        var address = list
        while let current = address {
            address = current.pointee.ai_next
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                return fail("failed to connect to \(host): timed out after \(stream.pointee.connect_timeout_ms) ms")
            }
            let descriptor = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), current.pointee.ai_protocol)
            guard descriptor >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            switch open(descriptor, to: current.pointee.ai_addr, length: current.pointee.ai_addrlen, within: milliseconds(remaining)) {
            case .success:
                var on: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                var timeout = timeval(
                    tv_sec: Int(stream.pointee.io_timeout_ms / 1000), tv_usec: Int(stream.pointee.io_timeout_ms % 1000) * 1000)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                stream.pointee.descriptor = descriptor
                return 0
            case .timedOut:
                close(descriptor)
                return fail("failed to connect to \(host): timed out after \(stream.pointee.connect_timeout_ms) ms")
            case .failed(let reason):
                close(descriptor)
                lastError = reason
            }
        }
        return fail("failed to connect to \(host): \(lastError)")
    }

    private enum Opening { case success, timedOut, failed(String) }

    /// A non-blocking connect, waited for with `poll` up to `milliseconds`; the socket is
    /// blocking again afterwards (reads and writes time out through `SO_RCVTIMEO`/`SO_SNDTIMEO`).
    private static func open(_ descriptor: Int32, to address: UnsafeMutablePointer<sockaddr>?, length: socklen_t, within milliseconds: Int32) -> Opening {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        if Glibc.connect(descriptor, address, length) == 0 { return .success }
        guard errno == EINPROGRESS else { return .failed(String(cString: strerror(errno))) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let deadline = ContinuousClock.now + .milliseconds(Int(milliseconds))
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            let ready = poll(&entry, 1, SocketStream.milliseconds(left))
            if ready == 0 { return .timedOut }
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed(String(cString: strerror(errno)))
            }
            break
        }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { return .failed(String(cString: strerror(errno))) }
        return error == 0 ? .success : .failed(String(cString: strerror(error)))
    }

    private static func read(_ stream: UnsafeMutablePointer<forkstore_socket_stream>, _ buffer: UnsafeMutableRawPointer?, _ length: Int) -> Int {
        while true {
            let count = recv(stream.pointee.descriptor, buffer, length, 0)
            // Acknowledge at once (Linux turns quick acks off again as it goes): a server that
            // keeps Nagle's algorithm on holds its next small write until our acknowledgement,
            // which the kernel would otherwise delay by up to 40 ms.
            var on: Int32 = 1
            setsockopt(stream.pointee.descriptor, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                return Int(fail("could not read from \(String(cString: stream.pointee.host)): timed out after \(stream.pointee.io_timeout_ms) ms"))
            default:
                return Int(fail("error receiving data from socket: \(String(cString: strerror(errno)))"))
            }
        }
    }

    private static func write(_ stream: UnsafeMutablePointer<forkstore_socket_stream>, _ data: UnsafePointer<CChar>?, _ length: Int) -> Int {
        while true {
            // No SIGPIPE when the server has gone: the error is returned instead.
            let count = send(stream.pointee.descriptor, data, length, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK:
                return Int(fail("could not write to \(String(cString: stream.pointee.host)): timed out after \(stream.pointee.io_timeout_ms) ms"))
            default:
                return Int(fail("error sending data: \(String(cString: strerror(errno)))"))
            }
        }
    }
}
