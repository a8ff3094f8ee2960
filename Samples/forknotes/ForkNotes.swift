import ArgumentParser
import ForkStore

@main
struct ForkNotes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forknotes",
        abstract: "A small notes app on ForkStore: notes versioned in git, with forks, merges and sync.",
        discussion: """
            Example:
              forknotes init --store notes
              forknotes add --store notes --title "Groceries" --tag home
              forknotes fork create --store notes phone
              forknotes merge --store notes --from phone

            \(ExitCodes.summary)
            """,
        subcommands: [
            InitCommand.self, AddCommand.self, EditCommand.self, RemoveCommand.self, AttachCommand.self, DetachCommand.self,
            OpenCommand.self, ListCommand.self, CountCommand.self, ImportCommand.self,
            ForkCommand.self, MergeCommand.self, LogCommand.self, CompactCommand.self, SyncCommand.self, StatusCommand.self,
            ReplayCommand.self, SchemaCommand.self, DoctorCommand.self, ShareCommand.self,
            DemoCommand.self,
        ]
    )

    /// Runs the command as ArgumentParser's own `main` does, except that a store another
    /// program kept busy (a `git` command holding a lock file) ends with its own exit code.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch where ExitCodes.isBusy(error) {
            Terminal.printError("Error: \(error)")
            exit(withError: ExitCodes.busy)
        } catch {
            exit(withError: error)
        }
    }
}
