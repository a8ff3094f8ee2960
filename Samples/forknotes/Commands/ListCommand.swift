import ArgumentParser
import ForkStore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the notes on a fork.",
        discussion: """
            Example: forknotes list --store notes --fork phone --json
            With --json, prints an array of notes with exactly id, title, body, tags and done.
            """)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Flag(help: "Print JSON instead of lines.") var json = false

    func run() throws {
        let store = try location.open()
        let notes = try store.records(in: try selection.parsed())
        if json {
            print(try NotesJSON.encode(notes.sorted { $0.id < $1.id }))
        } else {
            for note in notes.sorted(by: { ($0.title, $0.id) < ($1.title, $1.id) }) {
                print(note.line)
            }
        }
    }
}
