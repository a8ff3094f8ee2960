import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// The push side of git's protocol against a server that says exactly what each test wants:
/// what the remote reports, through side-band 64k, is read for what it means, and a malformed
/// or missing report is an error, not a guess.
@Suite("Pushing our own pack: what the remote reports")
struct SendPackTests {
    /// A repository with one commit holding one file.
    private func oneCommit(_ folder: TemporaryFolder) throws -> (Repository, ObjectID) {
        let repository = try Repository.createBare(at: folder.child("local.git"), initialBranch: "main")
        let blob = try repository.writeBlob(Array("{\"hello\":1}".utf8))
        let tree = try repository.writeTree([TreeEntry(name: "value.json", id: blob, kind: .blob)])
        let commit = try repository.createCommit(
            tree: tree, parents: [], message: "One\n", signature: Signature(name: "Test", email: "test@localhost"))
        return (repository, commit)
    }

    /// A server whose `main` does not exist yet and whose receive-pack answers with `report`.
    private func server(reporting report: String) throws -> TinyHTTPServer {
        try TinyHTTPServer { request in
            if request.requestLine.contains("info/refs?service=git-receive-pack") {
                let zero = String(repeating: "0", count: 40)
                let body = TinyHTTPServer.packetLine("# service=git-receive-pack\n") + "0000"
                    + TinyHTTPServer.packetLine("\(zero) capabilities^{}\0report-status side-band-64k ofs-delta\n") + "0000"
                return TinyHTTPServer.response(
                    "200 OK", headers: ["Content-Type: application/x-git-receive-pack-advertisement"], body: body)
            }
            return TinyHTTPServer.response(
                "200 OK", headers: ["Content-Type: application/x-git-receive-pack-result"], body: report)
        }
    }

    /// `lines` as git's report inside side-band channel 1.
    private static func bandOne(_ lines: [String]) -> String {
        TinyHTTPServer.packetLine("\u{1}" + lines.map { TinyHTTPServer.packetLine($0 + "\n") }.joined() + "0000") + "0000"
    }

    private func push(to server: TinyHTTPServer) throws -> PushOutcome {
        try pushReturningCommit(to: server).outcome
    }

    /// How the push failed, as the git layer sorted it where the failure was received.
    private func failure(pushingTo server: TinyHTTPServer) -> TransferFailure? {
        do {
            _ = try push(to: server)
            return nil
        } catch {
            return error as? TransferFailure
        }
    }

    private func pushReturningCommit(to server: TinyHTTPServer) throws -> (outcome: PushOutcome, commit: ObjectID) {
        let folder = TemporaryFolder()
        let (repository, commit) = try oneCommit(folder)
        return (try repository.sendPack(commit, toMainOf: server.url + "/repo.git", options: RemoteOptions()), commit)
    }

    @Test func anAcceptedPushSendsTheCommandAndOnePackOfWhatTheCommitHolds() async throws {
        let remote = try server(reporting: Self.bandOne(["unpack ok", "ok refs/heads/main"]))
        let (outcome, commit) = try pushReturningCommit(to: remote)
        #expect(outcome == .accepted)
        let sent = try #require(remote.requests.last { $0.requestLine.hasPrefix("POST") }).body
        let length = try #require(Int(String(decoding: sent.prefix(4), as: UTF8.self), radix: 16))
        let command = String(decoding: sent[4..<length], as: UTF8.self)
        let zero = String(repeating: "0", count: 40)
        #expect(command.hasPrefix("\(zero) \(commit.hex) refs/heads/main\0report-status side-band-64k ofs-delta"), "\(command)")
        #expect(command.hasSuffix("\n"))
        #expect(sent[length...].starts(with: Array("0000PACK".utf8)))
        #expect(Array(sent[(length + 12)..<(length + 16)]) == [0, 0, 0, 3], "a commit, a tree and a blob")
        // git's own indexer takes the pack as it was sent: checksum, entries and all.
        let folder = TemporaryFolder()
        let file = folder.child("sent.pack")
        try Data(sent[(length + 4)...]).write(to: URL(fileURLWithPath: file))
        let indexed = try await git("index-pack", file)
        #expect(indexed.status == 0, "\(indexed.stderr)")
    }

    @Test func aRefusedRefIsARejectionWithTheServersReason() throws {
        let remote = try server(reporting: Self.bandOne(["unpack ok", "ng refs/heads/main pre-receive hook declined"]))
        #expect(try push(to: remote) == .rejected("pre-receive hook declined"))
    }

    @Test func aRefNotUpdatedBecauseTheRemoteMovedOnMeansFetchAndTryAgain() throws {
        let remote = try server(reporting: Self.bandOne(["unpack ok", "ng refs/heads/main fetch first"]))
        #expect(try push(to: remote) == .behind("fetch first"))
    }

    @Test func aPackTheServerCouldNotUnpackIsAnError() throws {
        let remote = try server(reporting: Self.bandOne(["unpack index-pack abnormal exit", "ng refs/heads/main unpacker error"]))
        let failure = failure(pushingTo: remote)
        #expect(failure == .corruptData(reason: "the remote could not unpack the pack (index-pack): index-pack abnormal exit"))
    }

    @Test func aFatalErrorOnChannelThreeIsAnError() throws {
        let remote = try server(reporting: TinyHTTPServer.packetLine("\u{3}fatal: the disk is full\n"))
        let failure = failure(pushingTo: remote)
        #expect(failure == .transport(reason: "the remote said: fatal: the disk is full"))
    }

    @Test func aServerThatSendsNoReportIsAnError() throws {
        let remote = try server(reporting: "0000")
        let failure = failure(pushingTo: remote)
        #expect(failure == .unreachable(reason: "the remote ended the push without a report (early EOF)"))
    }

    @Test func manyMessagesAndReportsOnOtherRefsDoNotHideTheReportOnMain() throws {
        let chatter = (0..<2_000).map { TinyHTTPServer.packetLine("\u{2}" + String(repeating: "progress \($0) ", count: 50) + "\n") }.joined()
        let others = (0..<2_000).map { "ok refs/heads/other-\($0)" }
        let remote = try server(reporting: chatter + Self.bandOne(["unpack ok"] + others + ["ok refs/heads/main"]))
        #expect(try push(to: remote) == .accepted)
    }

    @Test func aPacketWithAnImpossibleLengthIsAnError() throws {
        let remote = try server(reporting: "zzzz" + Self.bandOne(["unpack ok", "ok refs/heads/main"]))
        let failure = failure(pushingTo: remote)
        #expect(failure.map { if case .transport = $0 { true } else { false } } == true, "\(String(describing: failure))")
        #expect(failure?.reason.contains("no valid length") == true)
    }
}
