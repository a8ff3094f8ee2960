import ArgumentParser
import ForkStore
import Foundation

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show a fork's history, newest first; K marks a checkpoint (compacted history).",
        discussion: "Example: forknotes log --store notes --fork phone --limit 5 --json")

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection
    @Option(help: "Show at most this many commits.") var limit: Int?
    @Flag(help: "Print JSON: id, parents, date, modelVersion, subject and trailers per commit.") var json = false

    struct Entry: Encodable {
        var id: String
        var parents: [String]
        var date: Date
        var modelVersion: Int?
        var subject: String
        var trailers: [String: String]
        /// For the checkpoint at the root of a compacted history, the commit it stands in for.
        var checkpointOf: String?
    }

    func run() throws {
        let store = try location.open()
        let history = try store.history(of: try selection.parsed(), limit: limit)
        guard json else {
            for commit in history { print(LogCommand.line(for: commit)) }
            return
        }
        let entries = history.map { commit in
            Entry(
                id: commit.id.hex, parents: commit.parents.map(\.hex), date: commit.date, modelVersion: commit.modelVersion,
                subject: commit.subject,
                trailers: Dictionary(commit.trailers.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
                checkpointOf: commit.checkpointOf?.hex)
        }
        print(String(decoding: try NoteJSON.encoder.encode(entries), as: UTF8.self))
    }

    static func line(for commit: Commit) -> String {
        let date = commit.date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
        let version = commit.modelVersion.map { "v\($0)" } ?? "v?"
        let mark = commit.checkpointOf != nil ? "K" : commit.isMerge ? "M" : "*"
        let subject = commit.checkpointOf.map { "checkpoint of \($0.short): older history compacted" } ?? commit.subject.escapedForTerminal
        return "\(mark) \(commit.id.short)  \(date)  \(version)  \(subject)"
    }
}
