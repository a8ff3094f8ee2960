internal import CLibGit2
import Foundation

/// What a push of `main` came to.
package enum PushOutcome: Sendable, Equatable {
    /// The remote's `main` is the pushed commit now (or was already).
    case accepted
    /// The remote's `main` holds commits the pushed one lacks, or moved while the push ran:
    /// another replica pushed first. Fetch, merge and push again.
    case behind(String)
    /// The remote refused the update for another reason (a hook, a protected ref, a
    /// replacement under a lease where the server refuses non-fast-forward updates); pushing
    /// again changes nothing until someone changes the server.
    case rejected(String)

    /// Refused before anything was sent: the remote's `main` is not an ancestor of the pushed
    /// commit (``Repository/objectsToPush(_:onto:)``).
    package static let remoteHasUnmergedCommits = PushOutcome.behind(
        "the remote's main has commits this replica has not merged (non-fast-forward)")

    /// How a server says the ref moved on: git's `receive-pack` and libgit2's push.
    package static func fromServer(_ reason: String) -> PushOutcome {
        let lower = reason.lowercased()
        let behind = ["non-fast-forward", "fetch first", "stale info", "failed to lock", "cannot lock ref", "failed to update ref"]
        return behind.contains(where: lower.contains) ? .behind(reason) : .rejected(reason)
    }
}

/// Which remote ref a push moves, and on what condition.
package struct PushTarget: Sendable, Equatable {
    /// The remote ref: `refs/heads/main`, or an archive ref.
    package let reference: String
    /// Nil: a fast-forward only (the remote's ref must be an ancestor of what is pushed). Set:
    /// a replacement under a lease, taken only while the remote's ref is still the lease's
    /// commit (nil inside: while the remote has no such ref), whatever the histories.
    package let lease: ObjectID??

    /// The remote's `main`, moved forward only.
    package static let main = PushTarget(reference: "refs/heads/main", lease: nil)

    /// The remote's `main`, replaced (a new lineage) only while it is `expected`.
    package static func main(replacing expected: ObjectID?) -> PushTarget {
        PushTarget(reference: "refs/heads/main", lease: .some(expected))
    }

    package init(reference: String, lease: ObjectID??) {
        self.reference = reference
        self.lease = lease
    }
}

/// The push side of git's smart protocol (send-pack), spoken over libgit2's own transports
/// (`git://`, `http(s)://`, `ssh://`): libgit2 connects, authenticates, checks certificates and
/// host keys, and lists the remote's refs; the pack is written here.
///
/// libgit2's push (`git_remote_push`) would build its pack with its packbuilder: it marks every
/// tree and blob of the remote's head as already there, a walk of the whole store (~65,000
/// trees at 100,000 records) for a one-record push, then searches every object it sends for a
/// delta and compresses it. A first push of 100,000 records spent half a minute there before
/// sending a byte, long enough for a web server to close the idle connection (a broken pipe).
/// Here the pack holds what the new commits add, found from the tree differences
/// (``Repository/objectsAdded(by:)``), written by ``PackWriter`` as the objects are read, and
/// streamed as it is written.
extension Repository {
    /// The transports that speak git's smart protocol, by URL; nil for any other URL.
    private static func smartSubtransport(for url: String) -> (make: git_smart_subtransport_cb, stateless: Bool)? {
        let lower = url.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return (git_smart_subtransport_http, true) }
        if lower.hasPrefix("git://") { return (git_smart_subtransport_git, false) }
        if lower.hasPrefix("ssh://") || lower.hasPrefix("ssh+git://") || lower.hasPrefix("git+ssh://") {
            return (git_smart_subtransport_ssh, false)
        }
        // scp-like `user@host:path`: a colon with no slash before it.
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/"), !lower.hasPrefix("file:") {
            return (git_smart_subtransport_ssh, false)
        }
        return nil
    }

    /// Whether ``sendPack(_:toMainOf:options:)`` can push to `url`.
    package static func speaksSmartProtocol(_ url: String) -> Bool {
        smartSubtransport(for: url) != nil
    }

    /// Makes `head` the `main` of the repository at `url`, sending the objects the commits
    /// since the remote's `main` add. The remote's `main` must be an ancestor of `head` that
    /// this repository holds; otherwise nothing is sent and the push is ``PushOutcome/behind(_:)``
    /// (fetch and merge first), as it is when the remote moved during the push. A failure is
    /// sorted here, where libgit2's code and what the server said are known.
    package func sendPack(_ head: ObjectID, toMainOf url: String, options: RemoteOptions) throws(TransferFailure) -> PushOutcome {
        try sendPack(head, to: .main, of: url, options: options)
    }

    /// Moves the remote ref `target` names to `head`, sending the objects `head` adds to what
    /// the remote's ref and its `main` hold (those this repository holds), as `target` allows:
    /// a fast-forward, or a replacement under a lease (``PushTarget/lease``), which is
    /// ``PushOutcome/behind(_:)`` when the remote's ref is not the lease's commit. The command
    /// names the remote's ref as it was listed, so `git-receive-pack` refuses the update if the
    /// ref moved meanwhile: the lease holds to the end.
    package func sendPack(_ head: ObjectID, to target: PushTarget, of url: String, options: RemoteOptions) throws(TransferFailure) -> PushOutcome {
        guard let subtransport = Self.smartSubtransport(for: url) else {
            throw .transport(reason: "\(url) is not a git, http(s) or ssh URL")
        }
        let state = CallbackState(options: options)
        return try transferring(state) { () throws(GitError) in
            try sendPack(head, to: target, of: url, through: subtransport, options: options, state: state)
        }
    }

    private func sendPack(
        _ head: ObjectID, to target: PushTarget, of url: String, through subtransport: (make: git_smart_subtransport_cb, stateless: Bool),
        options: RemoteOptions, state: CallbackState
    ) throws(GitError) -> PushOutcome {
        var outcome = PushOutcome.accepted
        try withAnonymousRemote(url) { (remote) throws(GitError) in
            var connection = git_remote_connect_options()
            try check("git_remote_connect_options_init") {
                git_remote_connect_options_init(&connection, UInt32(GIT_REMOTE_CONNECT_OPTIONS_VERSION))
            }
            // A redirect to another host is refused: the credentials are the remote's alone.
            connection.follow_redirects = GIT_REMOTE_REDIRECT_NONE
            Self.install(&connection.callbacks, state)
            defer { withExtendedLifetime(state) {} }
            try state.explainingFailures { () throws(GitError) in
                try SocketStream.withTimeouts(options.timeouts) { () throws(GitError) in
                    let session = try SmartSession(remote: remote, url: url, subtransport: subtransport, connection: &connection)
                    outcome = try push(head, to: target, through: session, state: state, progress: options.progress)
                }
            }
        }
        return outcome
    }

    private func push(
        _ head: ObjectID, to target: PushTarget, through session: SmartSession, state: CallbackState, progress: RemoteOptions.Progress?
    ) throws(GitError) -> PushOutcome {
        let remoteRef = try session.head(named: target.reference)
        if remoteRef == head { return .accepted }
        let objects: [PackObject]
        if let lease = target.lease {
            guard remoteRef == lease else { return .behind("the remote's \(target.reference) is not what this replica last saw (stale info)") }
            let remoteMain = target.reference == PushTarget.main.reference ? remoteRef : try session.head(named: PushTarget.main.reference)
            objects = try objectsToPush(head, replacing: [remoteRef, remoteMain].compactMap { $0 })
        } else {
            guard let found = try objectsToPush(head, onto: remoteRef) else { return .remoteHasUnmergedCommits }
            objects = found
        }
        let stream = try session.receivePackStream()
        let old = remoteRef?.hex ?? String(repeating: "0", count: 40)
        let command = "\(old) \(head.hex) \(target.reference)\0report-status side-band-64k ofs-delta agent=forkstore\n"
        guard let line = PacketLine.encode(command) else { throw ReceivePackReport.failure("the push command is too long") }
        try stream.write(line + Array("0000".utf8))
        // A failed send is the transport's failure, with its code and class, not the pack's.
        var sendFailure: GitError?
        let writer = PackWriter(objectCount: objects.count) { bytes throws(PackError) in
            do throws(GitError) { try stream.write(bytes) } catch {
                sendFailure = error
                throw PackError(.system, "sending the pack failed")
            }
        }
        do throws(GitError) {
            try writeEntries(of: objects, into: writer)
            _ = try packing("writing the pack") { () throws(PackError) in try writer.finish() }
        } catch {
            throw sendFailure ?? error
        }
        progress?(TransferStatistics(direction: .push, objects: objects.count, totalObjects: objects.count, bytes: writer.position))
        let report = try ReceivePackReport(reading: stream.read, on: target.reference) { state.remember($0 + "\n") }
        let outcome = try report.outcome
        // Under a lease the ref was still the expected commit when listed, and a ref that
        // moved since is "failed to update ref": "non-fast-forward" is the server refusing
        // any replacement (`receive.denyNonFastForwards`), which no retry changes.
        if target.lease != nil, case .behind(let reason) = outcome, reason.lowercased().contains("non-fast-forward") {
            return .rejected(reason)
        }
        return outcome
    }
}

/// A connection to a remote through libgit2's smart transport, for a push: connected (refs
/// listed) on creation, closed and freed with this object.
private final class SmartSession {
    /// Keeps the subtransport libgit2 makes for the transport, so its streams can be opened.
    private final class Maker {
        let make: git_smart_subtransport_cb
        var made: UnsafeMutablePointer<git_smart_subtransport>?
        init(_ make: git_smart_subtransport_cb) { self.make = make }
    }

    private let transport: UnsafeMutablePointer<git_transport>
    private let subtransport: UnsafeMutablePointer<git_smart_subtransport>
    private let maker: Maker
    private let url: String
    private let stateless: Bool
    private var opened: PushStream?

    init(
        remote: OpaquePointer?, url: String, subtransport kind: (make: git_smart_subtransport_cb, stateless: Bool),
        connection: inout git_remote_connect_options
    ) throws(GitError) {
        let maker = Maker(kind.make)
        var definition = git_smart_subtransport_definition()
        definition.rpc = kind.stateless ? 1 : 0
        definition.param = Unmanaged.passUnretained(maker).toOpaque()
        definition.callback = { out, owner, param in
            guard let param else { return -1 }
            let maker = Unmanaged<Maker>.fromOpaque(param).takeUnretainedValue()
            let result = maker.make(out, owner, nil)
            if result == 0 { maker.made = out?.pointee }
            return result
        }
        var created: UnsafeMutablePointer<git_transport>?
        try check("git_transport_smart") { git_transport_smart(&created, remote, &definition) }
        guard let transport = created, let subtransport = maker.made else {
            throw GitError(function: "git_transport_smart", rawCode: -1, errorClass: Int32(GIT_ERROR_NET.rawValue), message: "no transport for \(url)")
        }
        (self.transport, self.subtransport, self.maker, self.url, stateless) = (transport, subtransport, maker, url, kind.stateless)
        guard let connect = transport.pointee.connect else { throw Self.missing("connect") }
        try check("git_transport connect") { connect(transport, url, Int32(GIT_DIRECTION_PUSH.rawValue), &connection) }
    }

    deinit {
        // A stateless (HTTP) request stream is ours to free; a stateful one is the transport's.
        if stateless, let stream = opened?.raw { stream.pointee.free?(stream) }
        _ = transport.pointee.close?(transport)
        transport.pointee.free?(transport)
        withExtendedLifetime(maker) {}
    }

    /// The id the remote's ref `name` points at, or nil when it has no such ref.
    func head(named name: String) throws(GitError) -> ObjectID? {
        guard let ls = transport.pointee.ls else { throw Self.missing("ls") }
        var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        try check("git_transport ls") { ls(&heads, &count, transport) }
        for index in 0..<count {
            guard let head = heads?[index], let headName = head.pointee.name, String(cString: headName) == name else { continue }
            return ObjectID(head.pointee.oid)
        }
        return nil
    }

    /// The stream to `git-receive-pack`: the connection itself (`git://`, `ssh://`), or a new
    /// request (HTTP).
    func receivePackStream() throws(GitError) -> PushStream {
        guard let action = subtransport.pointee.action else { throw Self.missing("action") }
        var stream: UnsafeMutablePointer<git_smart_subtransport_stream>?
        try check("git_smart_subtransport action") { action(&stream, subtransport, url, GIT_SERVICE_RECEIVEPACK) }
        guard let stream else { throw Self.missing("stream") }
        let push = PushStream(raw: stream)
        opened = push
        return push
    }

    private static func missing(_ what: String) -> GitError {
        GitError(function: "git_transport", rawCode: -1, errorClass: Int32(GIT_ERROR_NET.rawValue), message: "the transport has no \(what)")
    }
}

/// A subtransport stream to `git-receive-pack`.
private struct PushStream {
    let raw: UnsafeMutablePointer<git_smart_subtransport_stream>

    func write(_ bytes: [UInt8]) throws(GitError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(GitError) in try write(buffer) } }.get()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(GitError) {
        guard let write = raw.pointee.write, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        try check("sending the pack") { write(raw, base.assumingMemoryBound(to: CChar.self), bytes.count) }
    }

    /// Up to 64 KB of what the remote sent; empty at its end.
    func read() throws(GitError) -> [UInt8] {
        guard let read = raw.pointee.read else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var count = 0
        let result = buffer.withUnsafeMutableBytes { target in
            read(raw, target.baseAddress?.assumingMemoryBound(to: CChar.self), target.count, &count)
        }
        try check("reading the remote's report") { result }
        return Array(buffer[..<min(count, buffer.count)])
    }
}
