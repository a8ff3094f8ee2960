import ArgumentParser
import ForkStore

struct DetachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detach",
        abstract: "Remove an attachment from a note.",
        discussion: """
            Example: forknotes detach --store notes 3f2a9c01b7de cat.jpg
            The note's history keeps the earlier versions, so the bytes stay in the store (and \
            on the remote) while any commit of the history refers to them.
            """)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Argument(help: "The note's id (see 'forknotes list').") var id: String
    @Argument(help: "The attachment's name (see 'forknotes list').") var name: String

    func run() throws {
        let store = try location.open()
        let fork = try selection.parsed()
        guard let note = try store.record(id, in: fork) else { throw NotesError.noteNotFound(id: id, fork: fork.name) }
        guard note.attachments[name] != nil else { throw NotesError.attachmentNotFound(name: name, id: id) }
        try store.update(id, in: fork, message: "Detach \(name) from note \(id)") { note in
            note.attachments[name] = nil
            note.touch()
        }
        print("Detached \(name.escapedForTerminal) from note \(id.escapedForTerminal).")
    }
}
