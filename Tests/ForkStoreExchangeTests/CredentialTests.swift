import ForkStore
import ForkStoreExchange
import ForkStoreTestSupport
import Foundation
import Testing

/// Credentials go to the remote's own origin only, and never appear in an error, whatever form
/// a server echoes them in.
@Suite("Credentials stay with the remote")
struct CredentialTests {
    static let username = "alice"
    static let password = "p@ss w/rd:1%"

    @Test func aRedirectToAnotherHostIsRefusedAndGetsNoPassword() async throws {
        let elsewhere = try TinyHTTPServer(host: "127.0.0.2") { request in
            request.authorization == nil
                ? TinyHTTPServer.response("401 Unauthorized", headers: ["WWW-Authenticate: Basic realm=\"git\""])
                : TinyHTTPServer.response("500 Internal Server Error")
        }
        let origin = try TinyHTTPServer { _ in
            TinyHTTPServer.response("302 Found", headers: ["Location: \(elsewhere.url)/repo.git/info/refs?service=git-upload-pack"])
        }
        let lab = try await SyncLab(createRemote: false)
        let (_, exchange) = try lab.replica("one", remote: try Remote(
            "\(origin.url)/repo.git", credentials: .userPassword(username: Self.username, password: Self.password)))
        do {
            try await exchange.sync()
            Issue.record("the sync followed the redirect")
        } catch {
            #expect(error.description.contains("another"), "\(error)")
            #expect(!error.description.contains(Self.password))
        }
        #expect(!origin.requests.isEmpty)
        #expect(elsewhere.requests.allSatisfy { $0.authorization == nil }, "the password went to another host")
    }

    @Test func aServerEchoingTheCredentialsCannotGetThemIntoErrors() async throws {
        let server = try TinyHTTPServer { request in
            guard let authorization = request.authorization else {
                return TinyHTTPServer.response("401 Unauthorized", headers: ["WWW-Authenticate: Basic realm=\"git\""])
            }
            let body = TinyHTTPServer.packetLine("# service=git-upload-pack\n") + "0000"
                + TinyHTTPServer.packetLine("ERR you sent \(authorization), that is \(Self.password), or "
                    + "\(Self.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") or "
                    + "\(Data(Self.password.utf8).base64EncodedString())\n")
            return TinyHTTPServer.response(
                "200 OK", headers: ["Content-Type: application/x-git-upload-pack-advertisement"], body: body)
        }
        let lab = try await SyncLab(createRemote: false)
        let (_, exchange) = try lab.replica("one", remote: try Remote(
            "\(server.url)/repo.git", credentials: .userPassword(username: Self.username, password: Self.password)))
        do {
            try await exchange.sync()
            Issue.record("the sync succeeded against an echoing server")
        } catch {
            let texts = [error.description, exchange.status.lastError?.description ?? ""]
            let pair = Data("\(Self.username):\(Self.password)".utf8).base64EncodedString()
            for text in texts {
                #expect(text.contains("(hidden)"), "\(text)")
                for secret in [Self.password, pair, Data(Self.password.utf8).base64EncodedString(),
                               Self.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""] {
                    #expect(!text.contains(secret), "\(text)")
                }
            }
        }
        #expect(server.requests.contains { $0.authorization != nil }, "the server did ask for and get credentials")
    }
}
