import ArgumentParser
import ForkStore
import Foundation

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the sync state: remote, last result, commits ahead and behind.",
        discussion: "Example: forknotes status --store notes --json")

    @OptionGroup var location: StoreLocation
    @Flag(help: "Print JSON instead of lines.") var json = false

    struct Status: Codable {
        var remote: String?
        var state: String
        var ahead: Int
        var behind: Int
        var lastError: String?
        var lastSuccess: Date?
        var quarantine: String?
    }

    func run() throws {
        let store = try location.open()
        let settings = SyncSettings.load(for: location.path)
        var ahead = 0, behind = 0
        if try store.hasFork(.cloud) {
            (ahead, behind) = try store.divergence(of: .main, from: .cloud)
        } else {
            ahead = try store.history(of: .main).count
        }
        let status = Status(
            remote: settings.remote, state: settings.lastState ?? "never synced", ahead: ahead, behind: behind,
            lastError: settings.lastError, lastSuccess: settings.lastSuccess, quarantine: settings.quarantine)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(status), as: UTF8.self))
            return
        }
        print("remote:       \(status.remote?.escapedForTerminal ?? "none (forknotes init --remote URL, or sync --remote URL)")")
        print("state:        \(status.state)")
        print("ahead:        \(ahead) commit(s) not yet pushed")
        print("behind:       \(behind) commit(s) fetched but not merged")
        print("last success: \(status.lastSuccess.map { $0.formatted(.iso8601) } ?? "never")")
        if let error = status.lastError { print("last error:   \(error.escapedForTerminal)") }
        if let kept = status.quarantine { print("quarantine:   \(kept.escapedForTerminal), removed by the next sync") }
    }
}
