import ArgumentParser
import ForkStore
import ForkStoreExchange
import Foundation

struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Print the local path of a note's attachment, fetching it from the remote first if needed.",
        discussion: """
            Example: forknotes open --store notes 3f2a9c01b7de cat.jpg
            The name may be left out when the note has one attachment. The bytes are checked \
            against the attachment's SHA-256 before the path is printed; a fetch stopped \
            half-way resumes where it stopped. Credentials come from the environment, as for \
            'sync'.

            \(ExitCodes.summary)
            """)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Argument(help: "The note's id (see 'forknotes list').") var id: String
    @Argument(help: "The attachment's name (default: the note's only attachment).") var name: String?

    func run() async throws {
        let store = try location.open()
        let fork = try selection.parsed()
        guard let note = try await store.record(id, in: fork) else { throw NotesError.noteNotFound(id: id, fork: fork.name) }
        let (name, asset) = try Self.attachment(named: name, of: note)
        if store.isLocal(asset) {
            print(try await store.localURL(of: asset).path)
            return
        }
        let exchange = try SyncSettings.exchange(for: store, at: location.path)
        let progress = ProgressLine()
        let events = exchange.events()
        let watcher = Task {
            for await event in events {
                if case .assetProgress(let transfer) = event { progress.show(transfer) }
            }
        }
        defer { watcher.cancel() }
        do {
            let url = try await exchange.fetchAsset(asset)
            progress.finish()
            print(url.path)
        } catch {
            progress.finish()
            Terminal.printError("Error: fetching \(name.escapedForTerminal): \(error.description)")
            if case .offline = error { throw ExitCodes.offline }
            throw ExitCode.failure
        }
    }

    static func attachment(named name: String?, of note: Note) throws -> (String, Asset) {
        if let name {
            guard let asset = note.attachments[name] else { throw NotesError.attachmentNotFound(name: name, id: note.id) }
            return (name, asset)
        }
        guard note.attachments.count == 1, let only = note.attachments.first else {
            throw ValidationError(
                note.attachments.isEmpty
                    ? "Note \(note.id.escapedForTerminal) has no attachments."
                    : "Note \(note.id.escapedForTerminal) has \(note.attachments.count) attachments; name one: "
                        + note.attachments.keys.sorted().map(\.escapedForTerminal).joined(separator: ", "))
        }
        return only
    }
}
