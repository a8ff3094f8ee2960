import ArgumentParser
import ForkStore

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Find every note file that cannot be read, on every fork, and say how to repair it.",
        discussion: """
            Example: forknotes doctor --store notes
            Exits 1 when it finds problems. With --repair, removes the damaged files in one commit
            per fork; the history keeps them, so nothing is lost.
            """)

    @OptionGroup var location: StoreLocation

    @Flag(help: "Remove the damaged note files (one commit per fork).") var repair = false

    func run() throws {
        let store = try location.open()
        var found = 0
        for fork in try store.forks() {
            let problems = try store.damagedNoteFiles(in: fork)
            guard !problems.isEmpty else { continue }
            found += problems.count
            for problem in problems {
                print("fork \(fork): \(problem)".escapedForTerminal)
            }
            if repair, fork != .cloud {
                let commit = try store.removeDamaged(problems, from: fork, message: "Remove damaged note files")
                print("fork \(fork): removed \(problems.count) damaged file(s) in commit \(commit.id.short)")
            } else if fork == .cloud {
                print("  cloud holds what the remote holds: the next sync replaces it.")
            } else {
                print("  repair: forknotes doctor --store \(location.path) --repair   (the history keeps the files)".escapedForTerminal)
            }
        }
        if let lastError = SyncSettings.load(for: location.path).lastError {
            print("last sync: \(lastError)".escapedForTerminal)
        }
        if found == 0 {
            print("No problems found.")
        } else if !repair {
            throw ExitCode.failure
        }
    }
}
