import ForkStoreGit
import Testing

/// ``SignedCommit`` reads a signature from the header's one `gpgsig` field, as git does, and
/// refuses a header that could be read another way.
@Suite("Commit signatures, read strictly")
struct SignedCommitTests {
    static let header = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n"
    static let field = "gpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n"
    static let message = "\nA change\n\nModel-Version: 1\n"

    @Test func theSignatureComesFromTheHeaderAndTheRestIsSigned() throws {
        let signed = try #require(try SignedCommit(commit: Array((Self.header + Self.field + Self.message).utf8)))
        #expect(signed.signature == "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n")
        #expect(signed.signedData == Array((Self.header + Self.message).utf8))
    }

    @Test func aSignatureInTheMessageIsNoSignature() throws {
        #expect(try SignedCommit(commit: Array((Self.header + "\n" + Self.field + Self.message).utf8)) == nil)
        #expect(try SignedCommit(commit: Array((Self.header + Self.message).utf8)) == nil)
    }

    @Test(arguments: [
        header + field + field + message,
        header + field + "gpgsig-sha256 x\n" + message,
        header + "gpgsig\n" + message,
        header + field + message + "\0",
        "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\0\n" + field + message,
    ])
    func aHeaderThatReadsTwoWaysIsRefused(_ commit: String) {
        #expect(throws: SignedCommit.Ambiguity.self) { try SignedCommit(commit: Array(commit.utf8)) }
    }
}
