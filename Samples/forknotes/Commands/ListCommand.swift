import ArgumentParser
import ForkStore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the notes on a fork.",
        discussion: """
            Example: forknotes list --store notes --fork phone --json
            With --json, prints an array of notes with id, title, body, tags and done, and
            completedAt and due when set. A note file that cannot be read is named on standard
            error and the exit code is 1; the other notes are listed.
            """)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection

    @Flag(help: "Print JSON instead of lines.") var json = false

    func run() throws {
        let store = try location.open()
        let (notes, problems) = try store.recordsAndProblems(in: try selection.parsed())
        if json {
            print(try NotesJSON.encode(notes.sorted { $0.id < $1.id }))
        } else {
            for note in notes.sorted(by: { ($0.title, $0.id) < ($1.title, $1.id) }) {
                print(note.line)
            }
        }
        // One damaged note does not hide the others: it is named on standard error.
        for problem in problems {
            Terminal.printError("damaged note file \(problem)")
        }
        if !problems.isEmpty {
            Terminal.printError("\(problems.count) note file(s) could not be read; see: forknotes doctor --store \(location.path)")
            throw ExitCode.failure
        }
    }
}
