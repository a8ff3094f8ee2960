import ForkStore
@testable import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import ForkStoreLocks
import Testing

/// Downloads that continue from what an earlier one left in the partial file: from a server
/// honouring `Range` (lighttpd serving the object as a static file, the download href of a
/// batch answer from a small server), and from one ignoring it (giftless), which starts again.
@Suite("Git LFS downloads resume from a partial file")
struct LFSResumeTests {
    static let bytes = pseudoRandomBytes(1_000_000, seed: 26)
    static let object = AssetObject(id: assetID(of: bytes), size: bytes.count)

    /// lighttpd serving `files` as static files, logging each request's status, bytes sent
    /// and Range header.
    final class StaticServer: Sendable {
        let port: Int
        let process: ChildProcess
        let log: String

        init(folder: String) async throws {
            log = folder + "/access.log"
            let log = log
            (port, process) = try await onFreePorts { ports in
                let config = """
                    server.document-root = "\(folder)/www"
                    server.bind = "127.0.0.1"
                    server.port = \(ports[0])
                    server.errorlog = "\(folder)/error.log"
                    server.modules = ( "mod_accesslog" )
                    accesslog.filename = "\(log)"
                    accesslog.format = "%r|%s|%b|%{Range}i"

                    """
                try config.write(toFile: folder + "/lighttpd.conf", atomically: true, encoding: .utf8)
                try? FileManager.default.removeItem(atPath: folder + "/error.log")
                let process = try ChildProcess("/usr/sbin/lighttpd", ["-D", "-f", folder + "/lighttpd.conf"], logPath: folder + "/lighttpd.log")
                try await waitForPort(ports[0], process: process, saying: "server started", in: folder + "/error.log")
                return (ports[0], process)
            }
        }

        /// The access log's lines: request line, status, body bytes sent, Range header (`-` for
        /// none). lighttpd buffers its access log: this stops the server first, which writes it.
        var requests: [[String]] {
            process.stop()
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map {
                $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            }
        }
    }

    /// A static server holding the object, and a batch server pointing at it.
    static func servers(_ lab: LFSLab) async throws -> (StaticServer, TinyHTTPServer) {
        let folder = lab.folder.child("static")
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/www/\(object.id.hex)"))
        let files = try await StaticServer(folder: folder)
        let port = files.port
        let batch = try TinyHTTPServer { _ in
            LFSHostileServerTests.answer([LFSHostileServerTests.entry(
                oid: object.id.hex, size: object.size, href: "http://127.0.0.1:\(port)/\(object.id.hex)")])
        }
        return (files, batch)
    }

    /// Writes `bytes` as the object's partial file.
    static func leavePartial(_ bytes: [UInt8], in folder: AssetFolder) throws {
        try FileManager.default.createDirectory(atPath: folder.root + "/tmp", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder.partialPath(of: object.id)))
    }

    @Test func aServerHonouringRangeSendsOnlyTheRest() async throws {
        let lab = LFSLab()
        let (files, batch) = try await Self.servers(lab)
        defer { files.process.stop() }
        let folder = lab.assets("receiving")
        try Self.leavePartial(Array(Self.bytes.prefix(400_000)), in: folder)
        let transport = try LFSTransport(endpoint: batch.url + "/org/repo")
        let seen = try await download(transport, [Self.object], into: folder)
        #expect(folder.verify(Self.object.id, size: Self.object.size))
        #expect(seen[Self.object.id] == Self.object.size)
        #expect(lab.leftovers(in: folder).isEmpty)
        #expect(files.requests == [["GET /\(Self.object.id.hex) HTTP/1.1", "206", "600000", "bytes=400000-"]])
    }

    /// Bytes left by a lying server: the resumed download hashes wrong and is refused (the
    /// partial file with it); the next one starts from nothing and succeeds.
    @Test func aDamagedPartialFileIsRefusedThenFetchedWhole() async throws {
        let lab = LFSLab()
        let (files, batch) = try await Self.servers(lab)
        defer { files.process.stop() }
        let folder = lab.assets("receiving")
        try Self.leavePartial([UInt8](repeating: 0, count: 400_000), in: folder)
        let transport = try LFSTransport(endpoint: batch.url + "/org/repo")
        let error = await failure { try await download(transport, [Self.object], into: folder) }
        guard case .corrupt(let id, _) = error as? AssetTransferFailure else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(id == Self.object.id)
        #expect(folder.objects().isEmpty && lab.leftovers(in: folder).isEmpty)

        try await download(transport, [Self.object], into: folder)
        #expect(folder.verify(Self.object.id, size: Self.object.size))
        #expect(files.requests.map { Array($0.suffix(3)) } == [["206", "600000", "bytes=400000-"], ["200", "1000000", "-"]])
    }

    /// A partial file longer than the object is started again; one that is whole needs no
    /// request.
    @Test func aPartialFileTooLongStartsAgainAndAWholeOneNeedsNoRequest() async throws {
        let lab = LFSLab()
        let (files, batch) = try await Self.servers(lab)
        defer { files.process.stop() }
        let transport = try LFSTransport(endpoint: batch.url + "/org/repo")
        let tooLong = lab.assets("too-long")
        try Self.leavePartial(Self.bytes + [1, 2, 3], in: tooLong)
        try await download(transport, [Self.object], into: tooLong)
        #expect(tooLong.verify(Self.object.id, size: Self.object.size))

        let whole = lab.assets("whole")
        try Self.leavePartial(Self.bytes, in: whole)
        try await download(transport, [Self.object], into: whole)
        #expect(whole.verify(Self.object.id, size: Self.object.size))
        // One request, for the partial file too long; none for the whole one.
        #expect(files.requests.map { Array($0.suffix(3)) } == [["200", "1000000", "-"]])
    }

    /// A connection that breaks in the middle of the body leaves what arrived in the partial
    /// file (the bytes waiting in memory are written out however the request ends), and the
    /// next download asks only for the rest.
    @Test func aBodyCutShortIsKeptAndTheNextDownloadAsksForTheRest() async throws {
        let lab = LFSLab()
        let text = pseudoRandomBytes(1_000_000, seed: 27).map { 97 + $0 % 26 }
        let object = AssetObject(id: assetID(of: text), size: text.count)
        let own = Locked<String>("")
        let broken = try TinyHTTPServer { request in
            guard request.requestLine.hasPrefix("GET ") else {
                return LFSHostileServerTests.answer([LFSHostileServerTests.entry(oid: object.id.hex, size: object.size, href: own.withLock { $0 } + "/o")])
            }
            // A length of the whole object, 300,000 bytes of it, and the connection closes.
            return "HTTP/1.1 200 OK\r\nContent-Length: \(object.size)\r\nConnection: close\r\n\r\n" + String(decoding: text.prefix(300_000), as: UTF8.self)
        }
        own.withLock { $0 = broken.url }
        let folder = lab.assets("receiving")
        let error = await failure { try await download(try LFSTransport(endpoint: broken.url + "/org/repo"), [object], into: folder) }
        guard case .unreachable = error as? TransferFailure else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        let kept = FileManager.default.contents(atPath: folder.partialPath(of: object.id))
        #expect(kept?.count == 300_000)
        #expect(kept.map { Array($0) == Array(text.prefix(300_000)) } == true)

        let staticFolder = lab.folder.child("static")
        try FileManager.default.createDirectory(atPath: staticFolder + "/www", withIntermediateDirectories: true)
        try Data(text).write(to: URL(fileURLWithPath: staticFolder + "/www/\(object.id.hex)"))
        let files = try await StaticServer(folder: staticFolder)
        defer { files.process.stop() }
        let port = files.port
        let batch = try TinyHTTPServer { _ in
            LFSHostileServerTests.answer([LFSHostileServerTests.entry(
                oid: object.id.hex, size: object.size, href: "http://127.0.0.1:\(port)/\(object.id.hex)")])
        }
        try await download(try LFSTransport(endpoint: batch.url + "/org/repo"), [object], into: folder)
        #expect(folder.verify(object.id, size: object.size))
        #expect(files.requests.map { Array($0.suffix(3)) } == [["206", "700000", "bytes=300000-"]])
    }

    /// giftless ignores Range and answers 200 with the whole object: the partial file is
    /// started again, not appended to (its bytes here are wrong, so appending would show).
    @Test func aServerIgnoringRangeStartsTheFileAgain() async throws {
        let lab = LFSLab()
        let server = try await GiftlessServer(folder: lab.folder.child("giftless"))
        defer { server.stop() }
        let sending = lab.assets("sending")
        let object = try lab.add(Self.bytes, to: sending)
        let transport = try LFSTransport(endpoint: server.endpoint())
        _ = try await upload(transport, [object], from: sending)

        let folder = lab.assets("receiving")
        try Self.leavePartial([UInt8](repeating: 7, count: 300_000), in: folder)
        let seen = try await download(transport, [object], into: folder)
        #expect(folder.verify(object.id, size: object.size))
        #expect(seen[object.id] == object.size)
        #expect(lab.leftovers(in: folder).isEmpty)
    }
}
