import ArgumentParser
import ForkStore
import Foundation

struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Attach a file to a note: its bytes become an asset, synced beside the notes.",
        discussion: """
            Example: forknotes attach --store notes 3f2a9c01b7de ~/Pictures/cat.jpg --name cat.jpg
            The file is copied into the store (any size up to 4 GiB, read a megabyte at a \
            time); the note keeps a reference to it. Attaching under a name the note already \
            uses replaces that attachment. Other replicas fetch the bytes when they open it.
            """)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Argument(help: "The note's id (see 'forknotes list').") var id: String
    @Argument(help: ArgumentHelp("The file to attach.", valueName: "file")) var file: String
    @Option(help: "The attachment's name in the note (default: the file's name).") var name: String?

    func validate() throws {
        if let name { try AttachmentName.check(name) }
    }

    func run() throws {
        let store = try location.open()
        let fork = try selection.parsed()
        let url = URL(fileURLWithPath: file)
        let name = try self.name ?? AttachmentName.check(url.lastPathComponent)
        let asset = try store.addAsset(contentsOf: url, fileName: name)
        do {
            try store.update(id, in: fork, message: "Attach \(name) to note \(id)") { note in
                note.attachments[name] = asset
                note.touch()
            }
        } catch StoreError.recordNotFound {
            throw NotesError.noteNotFound(id: id, fork: fork.name)
        }
        print("Attached \(name.escapedForTerminal) (\(AttachmentName.size(asset.size)), \(asset.id)) to note \(id.escapedForTerminal).")
    }
}

/// The rules for an attachment's name: a file name, without folders.
enum AttachmentName {
    @discardableResult
    static func check(_ name: String) throws -> String {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..",
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw ValidationError("An attachment's name is a file name, without '/' or control characters.") }
        return name
    }

    /// A size for people: bytes, KB, MB or GB.
    static func size(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)
    }
}
