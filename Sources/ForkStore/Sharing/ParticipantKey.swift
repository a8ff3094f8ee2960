import Foundation

/// The public half of a participant's Ed25519 ssh key, as `ssh-keygen` writes it in `.pub` files:
/// `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI… comment`.
public struct ParticipantKey: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the Ed25519 public key.
    let rawKey: [UInt8]

    /// Reads a public key line (`ssh-ed25519 <base64> [comment]`).
    ///
    /// - Throws: ``StoreError/invalidKey(reason:)`` for anything that is not an Ed25519 ssh
    ///   public key.
    public init(_ line: String) throws(StoreError) {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count >= 2, fields[0] == Self.type else {
            throw StoreError.invalidKey(reason: "a public key line starts with '\(Self.type)' and the key in base64")
        }
        guard let blob = Data(base64Encoded: fields[1]) else {
            throw StoreError.invalidKey(reason: "the key is not valid base64")
        }
        guard let key = Self.rawKey(fromBlob: Array(blob)) else {
            throw StoreError.invalidKey(reason: "the key is not an Ed25519 key")
        }
        rawKey = key
    }

    /// A key from its ssh wire blob (`string "ssh-ed25519", string key`).
    init?(blob: [UInt8]) {
        guard let key = Self.rawKey(fromBlob: blob) else { return nil }
        rawKey = key
    }

    private static func rawKey(fromBlob blob: [UInt8]) -> [UInt8]? {
        var wire = SSHWire(blob)
        guard let type = try? wire.readString(), type == Array(Self.type.utf8), let key = try? wire.readString(),
            key.count == 32, wire.isAtEnd
        else { return nil }
        return key
    }

    init(rawKey: [UInt8]) {
        self.rawKey = rawKey
    }

    static let type = "ssh-ed25519"

    /// The ssh wire blob of the key.
    var blob: [UInt8] { SSHWire.string(Self.type) + SSHWire.string(rawKey) }

    /// `ssh-ed25519 <base64>`, without a comment: how the participants file and `git`'s allowed
    /// signers file write it.
    public var description: String { "\(Self.type) \(Data(blob).base64EncodedString())" }
}
