import ArgumentParser
import ForkStore
import Foundation

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show a fork's history, newest first.",
        discussion: "Example: forknotes log --store notes --fork phone --limit 5")

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection
    @Option(help: "Show at most this many commits.") var limit: Int?

    func run() throws {
        let store = try location.open()
        for commit in try store.history(of: try selection.parsed(), limit: limit) {
            print(LogCommand.line(for: commit))
        }
    }

    static func line(for commit: Commit) -> String {
        let date = commit.date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
        let version = commit.modelVersion.map { "v\($0)" } ?? "v?"
        let mark = commit.isMerge ? "M" : "*"
        return "\(mark) \(commit.id.short)  \(date)  \(version)  \(commit.subject)"
    }
}
