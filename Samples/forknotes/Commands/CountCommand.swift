import ArgumentParser
import ForkStore

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count the notes on a fork.",
        discussion: """
            Example: forknotes count --store notes --tag work
            Without filters, reads the count kept with the fork's head commit; with them, asks
            the store's query index.
            """)

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection
    @OptionGroup var filter: NoteFilter

    func run() throws {
        let store = try location.open()
        let fork = try selection.parsed()
        print(filter.isEmpty ? try store.count(in: fork) : try store.count(matching: try filter.query(), in: fork))
    }
}
