import ArgumentParser
import ForkStore

struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a note; prints its id alone on the last line.",
        discussion: #"Example: forknotes add --store notes --title "Call Ada" --body "about the merge" --tag work"#)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Option(help: "The note's title.") var title: String
    @Option(help: "The note's text.") var body: String = ""
    @Option(name: .customLong("tag"), help: "A tag; repeat for more.") var tags: [String] = []
    @Option(help: ArgumentHelp("A due date, YYYY-MM-DD (model version 2).", valueName: "date")) var due: String?

    func validate() throws {
        if let due { _ = try DueDate.parse(due) }
    }

    func run() throws {
        let store = try location.open()
        let note = Note(id: Note.makeID(), title: title, body: body, tags: Set(tags), due: try due.map(DueDate.parse))
        try store.save(note, to: try selection.parsed(), message: "Add note \(note.id)")
        print(note.id)
    }
}
