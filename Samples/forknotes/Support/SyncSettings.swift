import ArgumentParser
import ForkStore
import ForkStoreExchange
import Foundation

/// What `forknotes` remembers about syncing, in `forknotes-sync.json` inside the store's
/// folder: the remote's URL (never credentials) and the last sync's outcome.
struct SyncSettings: Codable {
    var remote: String?
    var lastError: String?
    var lastState: String?
    var lastSuccess: Date?
    /// The fetch the last sync refused, kept for inspection until the next sync:
    /// `<commit> in <repository> (<reference>)`.
    var quarantine: String?

    static func path(for store: String) -> String {
        (store as NSString).appendingPathComponent("forknotes-sync.json")
    }

    static func load(for store: String) -> SyncSettings {
        guard let data = FileManager.default.contents(atPath: path(for: store)) else { return SyncSettings() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode(SyncSettings.self, from: data)) ?? SyncSettings()
    }

    /// An exchange for the store with `remote`, or else the recorded remote, with credentials
    /// and options from the environment.
    static func exchange(for store: RecordStore<Note>, at path: String, remote: String? = nil) throws -> Exchange {
        guard let url = remote ?? load(for: path).remote else {
            throw ValidationError("No remote: pass --remote URL, or record one with 'forknotes init --remote URL'.")
        }
        return Exchange(
            records: store,
            remote: try Remote(url, credentials: SyncEnvironment.credentials, trust: SyncEnvironment.trust),
            options: try SyncEnvironment.options())
    }

    func save(for store: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: URL(fileURLWithPath: Self.path(for: store)), options: .atomic)
    }
}

/// Credentials and trust from the environment, so no secret is typed on a command line or
/// stored on disk.
enum SyncEnvironment {
    static var credentials: Credentials? {
        let environment = ProcessInfo.processInfo.environment
        if let key = environment["FORKNOTES_SSH_KEY"] {
            return .sshKey(
                username: environment["FORKNOTES_USERNAME"] ?? "git", privateKey: key,
                passphrase: environment["FORKNOTES_SSH_PASSPHRASE"])
        }
        if let password = environment["FORKNOTES_PASSWORD"] {
            return .userPassword(username: environment["FORKNOTES_USERNAME"] ?? "git", password: password)
        }
        return nil
    }

    /// The exchange's options: `FORKNOTES_BUSY_TIMEOUT` (seconds) sets how long a sync waits
    /// for another sync of the store, `FORKNOTES_TRUSTED_OWNERS` the owners it trusts; the
    /// library's defaults otherwise.
    static func options() throws -> ExchangeOptions {
        var options = ExchangeOptions()
        if let text = ProcessInfo.processInfo.environment["FORKNOTES_BUSY_TIMEOUT"], let seconds = Double(text), seconds.isFinite, seconds >= 0 {
            options.busyTimeout = .milliseconds(Int64(min(seconds, 86_400) * 1000))
        }
        if let file = ProcessInfo.processInfo.environment["FORKNOTES_TRUSTED_OWNERS"] {
            options.trustedOwners = try trustedOwners(inFile: file)
        }
        return options
    }

    /// The largest trusted owners file read: thousands of key lines.
    static let maximumTrustedOwnersFileSize = 1 << 20

    /// The public keys in a file of ssh public key lines (one a line, as `.pub` files write
    /// them; blank lines and lines starting with `#` skipped). A file that names none is an
    /// error: it would trust on first use without saying so.
    static func trustedOwners(inFile path: String) throws -> [ParticipantKey] {
        func fail(_ reason: String) -> ValidationError { ValidationError("FORKNOTES_TRUSTED_OWNERS (\(path)): \(reason)") }
        guard let handle = FileHandle(forReadingAtPath: path),
            let data = try? handle.read(upToCount: maximumTrustedOwnersFileSize + 1)
        else { throw fail("cannot read the file") }
        try? handle.close()
        guard data.count <= maximumTrustedOwnersFileSize else { throw fail("the file is over \(maximumTrustedOwnersFileSize) bytes") }
        guard let text = String(data: data, encoding: .utf8) else { throw fail("the file is not UTF-8 text") }
        var keys: [ParticipantKey] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            do {
                keys.append(try ParticipantKey(trimmed))
            } catch {
                throw fail("line \(index + 1): \(error.description)")
            }
        }
        guard !keys.isEmpty else { throw fail("the file names no key") }
        return keys
    }

    static var trust: ServerTrust {
        let environment = ProcessInfo.processInfo.environment
        if let fingerprint = environment["FORKNOTES_HOST_KEY"] { return .pinnedHostKey(fingerprint: fingerprint) }
        if environment["FORKNOTES_INSECURE"] == "1" { return .acceptAnyServer }
        return .verify
    }
}
