import Crypto
import Foundation

/// An Ed25519 ssh private key that signs a replica's commits, in git's own ssh signature format
/// (`gpgsig` header, `-----BEGIN SSH SIGNATURE-----`), so stock `git verify-commit` checks them
/// with an allowed-signers file. Give it to a store in ``StoreOptions/signingKey``.
///
/// Read it from an unencrypted OpenSSH private key (`ssh-keygen -t ed25519 -N ""`). Keep the key
/// file private; the key stays in memory and never appears in messages.
public struct SigningKey: Sendable, CustomStringConvertible {
    /// The 32-byte Ed25519 seed.
    private let seed: [UInt8]

    /// The key that verifies this key's signatures: add it to a store's participants.
    public let publicKey: ParticipantKey

    /// Reads an OpenSSH private key (`-----BEGIN OPENSSH PRIVATE KEY-----`) of type Ed25519.
    ///
    /// - Throws: ``StoreError/invalidKey(reason:)`` naming what is wrong (another key type, a
    ///   passphrase-protected key, a damaged file).
    public init(openSSHPrivateKey text: String) throws(StoreError) {
        do {
            let key = try Self.parse(text)
            seed = Array(key.rawRepresentation)
            publicKey = ParticipantKey(rawKey: Array(key.publicKey.rawRepresentation))
        } catch {
            throw StoreError.invalidKey(reason: error.description)
        }
    }

    /// Reads an OpenSSH private key file.
    public init(contentsOfFile path: String) throws(StoreError) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw StoreError.invalidKey(reason: "cannot read the key file '\(path)'")
        }
        try self.init(openSSHPrivateKey: text)
    }

    public var description: String { "signing key \(publicKey)" }

    /// The armored ssh signature (namespace `git`) of `content`.
    func sign(_ content: [UInt8]) throws -> String {
        let hash = Array(SHA512.hash(data: content))
        let privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        let signature = try privateKey.signature(for: SSHSignature.signedBlob(hash: hash, algorithm: "sha512"))
        let envelope = SSHSignature.magic + SSHWire.uint32(1) + SSHWire.string(publicKey.blob) + SSHWire.string(SSHSignature.namespace)
            + SSHWire.string("") + SSHWire.string("sha512")
            + SSHWire.string(SSHWire.string(ParticipantKey.type) + SSHWire.string(Array(signature)))
        let base64 = Data(envelope).base64EncodedString()
        var lines: [String] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(70)))
            rest = rest.dropFirst(70)
        }
        return (["-----BEGIN SSH SIGNATURE-----"] + lines + ["-----END SSH SIGNATURE-----"]).joined(separator: "\n")
    }

    private static func parse(_ text: String) throws(SSHFormatError) -> Curve25519.Signing.PrivateKey {
        let body = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("-----") }.joined()
        guard text.contains("-----BEGIN OPENSSH PRIVATE KEY-----"), let data = Data(base64Encoded: body) else {
            throw SSHFormatError("it is not an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----)")
        }
        var wire = SSHWire(Array(data))
        guard try wire.read(15) == Array("openssh-key-v1\u{0}".utf8) else { throw SSHFormatError("it is not an OpenSSH private key") }
        guard try wire.readString() == Array("none".utf8) else {
            throw SSHFormatError("the key is protected by a passphrase; make an unprotected copy with ssh-keygen -p")
        }
        _ = try wire.readString()  // kdf name
        _ = try wire.readString()  // kdf options
        guard try wire.readUInt32() == 1 else { throw SSHFormatError("the file holds more than one key") }
        _ = try wire.readString()  // public key
        var secret = SSHWire(try wire.readString())
        guard try secret.readUInt32() == secret.readUInt32() else { throw SSHFormatError("the key is damaged") }
        guard try secret.readString() == Array(ParticipantKey.type.utf8) else {
            throw SSHFormatError("only Ed25519 keys are supported (ssh-keygen -t ed25519)")
        }
        let publicKey = try secret.readString()
        let keys = try secret.readString()
        guard publicKey.count == 32, keys.count == 64, Array(keys[32...]) == publicKey,
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: keys[..<32])
        else { throw SSHFormatError("the key is damaged") }
        return key
    }
}

/// git's ssh signatures (OpenSSH's `PROTOCOL.sshsig`), namespace `git`.
enum SSHSignature {
    static let magic = Array("SSHSIG".utf8)
    static let namespace = "git"

    /// What the key actually signs: the magic, namespace, hash algorithm and message hash.
    static func signedBlob(hash: [UInt8], algorithm: String) -> [UInt8] {
        magic + SSHWire.string(namespace) + SSHWire.string("") + SSHWire.string(algorithm) + SSHWire.string(hash)
    }

    /// The key whose valid signature of `content` `armored` is.
    ///
    /// - Throws: `SSHFormatError` saying why the signature does not hold.
    static func signer(of content: [UInt8], armored: String) throws(SSHFormatError) -> ParticipantKey {
        let body = armored.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("-----") }.joined()
        guard armored.contains("-----BEGIN SSH SIGNATURE-----"), let data = Data(base64Encoded: body) else {
            throw SSHFormatError("the signature is not an ssh signature")
        }
        var wire = SSHWire(Array(data))
        guard try wire.read(6) == magic, try wire.readUInt32() == 1 else { throw SSHFormatError("the signature is not an ssh signature") }
        guard let key = ParticipantKey(blob: try wire.readString()) else {
            throw SSHFormatError("the signature is not made with an Ed25519 key")
        }
        guard try wire.readString() == Array(namespace.utf8) else { throw SSHFormatError("the signature is not for git") }
        _ = try wire.readString()  // reserved
        let algorithm = String(decoding: try wire.readString(), as: UTF8.self)
        var signature = SSHWire(try wire.readString())
        guard try signature.readString() == Array(ParticipantKey.type.utf8) else { throw SSHFormatError("the signature is damaged") }
        let bytes = try signature.readString()
        let hash: [UInt8]
        switch algorithm {
        case "sha512": hash = Array(SHA512.hash(data: content))
        case "sha256": hash = Array(SHA256.hash(data: content))
        default: throw SSHFormatError("the signature uses the unknown hash '\(algorithm)'")
        }
        guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: key.rawKey),
            publicKey.isValidSignature(bytes, for: signedBlob(hash: hash, algorithm: algorithm))
        else { throw SSHFormatError("the signature does not match the commit") }
        return key
    }
}
