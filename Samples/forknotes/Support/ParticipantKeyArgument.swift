import ForkStore
import Foundation

/// A participant's key as `share add` and `share remove` take it: the public key line itself
/// (`ssh-ed25519 AAAA… comment`), or the path of the `.pub` file holding it, as git's
/// `user.signingKey` and the ssh tools take a key.
enum ParticipantKeyArgument {
    /// A `.pub` file is one line of about 100 bytes; a larger file than this is not one, and no
    /// more of it is read.
    static let maximumFileSize = 16 * 1024

    static func key(_ argument: String) throws -> ParticipantKey {
        isKeyLine(argument) ? try ParticipantKey(argument) : try key(inFile: argument)
    }

    /// A key line starts with its type (`ssh-…`, `ecdsa-…`, `sk-…`) and a space; a path does not.
    private static func isKeyLine(_ argument: String) -> Bool {
        let type = argument.prefix { $0 != " " && $0 != "\t" }
        return type.count < argument.count && ["ssh-", "ecdsa-", "sk-"].contains { type.hasPrefix($0) }
    }

    /// The key in a `.pub` file. Nothing read from the file is ever printed, but the type of a
    /// key that is not Ed25519: the file may be a private key, or anything else.
    private static func key(inFile path: String) throws -> ParticipantKey {
        func refuse(_ problem: String) -> NotesError { .keyFile(path: path, problem: problem) }
        let bytes = try contents(of: path)
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("PRIVATE KEY-----") || text.hasPrefix("PuTTY-User-Key-File") {
            let publicHalf = FileManager.default.fileExists(atPath: path + ".pub") ? "'\(path).pub'" : "(ssh-keygen -y -f \(path) prints it)"
            throw refuse("it is a private key, which stays with its owner; give its public half, \(publicHalf)")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw refuse("it is not a text file, as a .pub file is") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.count == 1, let line = lines.first else {
            throw refuse(lines.isEmpty ? "it is empty" : "it holds \(lines.count) lines, and a .pub file holds one key line")
        }
        let type = String(line.prefix { $0 != " " && $0 != "\t" }.prefix(40))
        guard isKeyLine(line) else { throw refuse("it holds no public key line (ssh-ed25519 AAAA… [comment])") }
        do {
            return try ParticipantKey(line)
        } catch {
            throw refuse(type == "ssh-ed25519" ? "its key is damaged" : "it holds an \(type) key; participants have Ed25519 keys (ssh-keygen -t ed25519)")
        }
    }

    /// The file's bytes: a regular file of at most ``maximumFileSize`` bytes, read no further.
    private static func contents(of path: String) throws -> [UInt8] {
        func refuse(_ problem: String) -> NotesError { .keyFile(path: path, problem: problem) }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw NotesError.noKeyFile(path: path)
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw refuse("it is not a file (a folder or a device)") }
        let tooLarge = "it is larger than \(maximumFileSize / 1024) KiB, and a .pub file is one line of about 100 bytes"
        guard (attributes[.size] as? Int ?? 0) <= maximumFileSize else { throw refuse(tooLarge) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw refuse("it cannot be read (check its permissions)") }
        defer { try? handle.close() }
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw refuse("it cannot be read (\(error.localizedDescription))")
        }
        guard bytes.count <= maximumFileSize else { throw refuse(tooLarge) }
        return Array(bytes)
    }
}
