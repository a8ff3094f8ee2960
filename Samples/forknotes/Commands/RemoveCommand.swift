import ArgumentParser
import ForkStore

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a note (the history keeps it).",
        discussion: "Example: forknotes rm --store notes 3f2a9c01b7de")

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Argument(help: "The note's id.") var id: String

    func run() throws {
        let store = try location.open()
        let fork = try selection.parsed()
        do {
            try store.delete(id, from: fork, message: "Delete note \(id)")
        } catch StoreError.recordNotFound {
            throw NotesError.noteNotFound(id: id, fork: fork.name)
        }
    }
}
