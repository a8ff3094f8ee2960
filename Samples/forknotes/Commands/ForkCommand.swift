import ArgumentParser
import ForkStore

struct ForkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fork",
        abstract: "Create, list and delete forks.",
        subcommands: [Create.self, List.self, Delete.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a fork at main's head.",
            discussion: "Example: forknotes fork create --store notes phone")

        @OptionGroup var location: StoreLocation
        @Argument(help: "The new fork's name.") var name: String

        func run() throws {
            let store = try location.open()
            let head = try store.createFork(try Fork(name))
            print("Created fork '\(name)' at \(head.id.short)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the forks.",
            discussion: "Example: forknotes fork list --store notes")

        @OptionGroup var location: StoreLocation
        @Flag(help: "Print a JSON array of names.") var json = false

        func run() throws {
            let forks = try location.open().forks().map(\.name)
            if json {
                print(String(decoding: try NoteJSON.encoder.encode(forks), as: UTF8.self))
            } else {
                forks.forEach { print($0) }
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a fork (main cannot be deleted).",
            discussion: "Example: forknotes fork delete --store notes phone")

        @OptionGroup var location: StoreLocation
        @Argument(help: "The fork to delete.") var name: String

        func run() throws {
            try location.open().deleteFork(try Fork(name))
            print("Deleted fork '\(name)'")
        }
    }
}
