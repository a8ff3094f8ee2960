import ArgumentParser
import ForkStore

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a note's title, body, tags or done flag.",
        discussion: #"Example: forknotes edit --store notes 3f2a9c01b7de --add-tag urgent --done"#)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Argument(help: "The note's id (see 'forknotes list').") var id: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new text.") var body: String?
    @Option(name: .customLong("add-tag"), help: "Add a tag; repeat for more.") var addTags: [String] = []
    @Option(name: .customLong("remove-tag"), help: "Remove a tag; repeat for more.") var removeTags: [String] = []
    @Flag(help: "Mark the note done (--done) or not done (--undone).") var state: DoneState?
    @Option(help: ArgumentHelp("A due date, YYYY-MM-DD (model version 2).", valueName: "date")) var due: String?

    func validate() throws {
        if let due { _ = try DueDate.parse(due) }
    }

    enum DoneState: String, EnumerableFlag {
        case done, undone
    }

    func run() throws {
        let store = try location.open()
        let fork = try selection.parsed()
        do {
            try store.update(id, in: fork, message: "Edit note \(id)") { note in
                if let title { note.title = title }
                if let body { note.body = body }
                note.tags.formUnion(addTags)
                note.tags.subtract(removeTags)
                if let state { note.done = state == .done }
                if let due { note.due = try DueDate.parse(due) }
                note.touch()
            }
        } catch StoreError.recordNotFound {
            throw NotesError.noteNotFound(id: id, fork: fork.name)
        }
    }
}
