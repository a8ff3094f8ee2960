@testable import ForkStore
import Foundation

extension FuzzTarget {
    /// The ssh key and signature readers (participants files, key files, commit signatures).
    /// The first byte picks the reader; the rest is its input. The binary formats are fuzzed
    /// as bytes, wrapped in their base64 armor here, so mutations reach the wire reader.
    /// A key read is written back and read again to the same key.
    static let ssh = FuzzTarget(name: "ssh") { bytes in
        guard let mode = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        switch mode % 5 {
        case 0:  // a public key line, as in participants.json and .pub files
            guard let key = try? ParticipantKey(String(decoding: input, as: UTF8.self)) else { return }
            check(key.rawKey.count == 32, "a key of \(key.rawKey.count) bytes from \(shown(input))")
            check((try? ParticipantKey(key.description)) == key, "\(key) does not read back")
        case 1:  // a key's wire blob, as in a signature
            guard let key = ParticipantKey(blob: input) else { return }
            check(key.blob == input, "the blob of \(key) is not the one it was read from")
        case 2:  // an OpenSSH private key's wire bytes
            let text = "-----BEGIN OPENSSH PRIVATE KEY-----\n\(Data(input).base64EncodedString(options: .lineLength76Characters))\n-----END OPENSSH PRIVATE KEY-----\n"
            guard let key = try? SigningKey(openSSHPrivateKey: text) else { return }
            // It signs, and its signature verifies as its own.
            let content = Array("fuzz".utf8)
            guard let signature = try? key.sign(content) else { return check(false, "\(key) does not sign") }
            check((try? SSHSignature.signer(of: content, armored: signature)) == key.publicKey, "\(key)'s signature does not verify")
        case 3:  // a commit signature's wire bytes, over fixed content
            let armored = "-----BEGIN SSH SIGNATURE-----\n\(Data(input).base64EncodedString(options: .lineLength76Characters))\n-----END SSH SIGNATURE-----"
            _ = try? SSHSignature.signer(of: Array("fuzz".utf8), armored: armored)
        default:  // private key and signature text as they come, armor and all
            let text = String(decoding: input, as: UTF8.self)
            _ = try? SigningKey(openSSHPrivateKey: text)
            _ = try? SSHSignature.signer(of: [], armored: text)
        }
    }
}
