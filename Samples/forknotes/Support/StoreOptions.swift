import ArgumentParser
import ForkStore
import Foundation

/// `--store PATH`, taken by every command.
struct StoreLocation: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store's folder (default: $FORKNOTES_STORE).", valueName: "path"))
    var store: String?

    func validate() throws {
        if path.isEmpty {
            throw ValidationError("Missing '--store PATH' (or set FORKNOTES_STORE).")
        }
    }

    var path: String {
        store ?? ProcessInfo.processInfo.environment["FORKNOTES_STORE"] ?? ""
    }

    func open() throws -> RecordStore<Note> {
        try RecordStore<Note>.open(at: path, options: Self.storeOptions())
    }

    /// Store options from the environment: `FORKNOTES_SIGNING_KEY` names an Ed25519 OpenSSH
    /// private key file that signs every commit.
    static func storeOptions() throws -> StoreOptions {
        var options = StoreOptions()
        options.signingKey = try signingKey()
        return options
    }

    static func signingKey() throws -> SigningKey? {
        try ProcessInfo.processInfo.environment["FORKNOTES_SIGNING_KEY"].map { try SigningKey(contentsOfFile: $0) }
    }
}

/// `--fork NAME`, taken by commands that read or change notes.
struct ForkSelection: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The fork to use.", valueName: "name"))
    var fork: String = "main"

    func validate() throws {
        _ = try parsed()
    }

    func parsed() throws -> Fork {
        do {
            return try Fork(fork)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
