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
            InitCommand.self, AddCommand.self, EditCommand.self, RemoveCommand.self, ListCommand.self, CountCommand.self, ImportCommand.self,
            ForkCommand.self, MergeCommand.self, LogCommand.self, SyncCommand.self, StatusCommand.self,
            ReplayCommand.self, SchemaCommand.self, DoctorCommand.self, ShareCommand.self,
            DemoCommand.self,
        ]
    )

}
