import ArgumentParser
import ForkStore

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new, empty notes store.",
        discussion: "Example: forknotes init --store notes")

    @OptionGroup var location: StoreLocation

    func run() throws {
        let store = try Store<Notebook>.create(at: location.path)
        try store.save(Notebook(), message: "Start a notebook")
        print("Created a notes store at \(location.path)")
    }
}
