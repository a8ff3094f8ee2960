import ArgumentParser
import ForkStore
import ForkStoreExchange

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new, empty notes store.",
        discussion: "Example: forknotes init --store notes --remote git://127.0.0.1/notes.git")

    @OptionGroup var location: StoreLocation
    @Option(help: ArgumentHelp("A remote to sync with, recorded for 'sync' (no credentials).", valueName: "url"))
    var remote: String?

    func validate() throws {
        if let remote {
            do { _ = try Remote(remote) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        _ = try RecordStore<Note>.create(at: location.path, options: StoreLocation.storeOptions())
        if let remote {
            try SyncSettings(remote: remote).save(for: location.path)
        }
        print("Created a notes store at \(location.path)" + (remote.map { " syncing with \($0)" } ?? ""))
    }
}
