import ArgumentParser
import ForkStore
import Foundation

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Check that every commit of every fork still reads with this build's model and migrations.",
        discussion: """
            Example: forknotes replay --store notes
            Decodes every note each commit added or changed, oldest first; exits 1 naming the
            first commit that fails, and why.
            """)

    @OptionGroup var location: StoreLocation

    func run() throws {
        let report = try location.open().replayHistory()
        if let failure = report.firstFailure {
            FileHandle.standardError.write(Data("Error: \(failure)\n".utf8))
            throw ExitCode.failure
        }
        print("All \(report.commits) commit(s) and \(report.values) note version(s) read with model version \(Note.modelVersion).")
    }
}
