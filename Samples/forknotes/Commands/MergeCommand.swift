import ArgumentParser
import ForkStore
import Foundation

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge one fork into another (by default into main).",
        discussion: "Example: forknotes merge --store notes --from phone")

    @OptionGroup var location: StoreLocation
    @Option(help: ArgumentHelp("The fork to merge from.", valueName: "name")) var from: String
    @Option(help: ArgumentHelp("The fork to merge into.", valueName: "name")) var into: String = "main"

    func validate() throws {
        for name in [from, into] {
            do { _ = try Fork(name) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        let store = try location.open()
        switch try store.merge(from: try Fork(from), into: try Fork(into)) {
        case .upToDate:
            print("'\(into)' already has everything from '\(from)'.")
        case .fastForwarded(let commit):
            print("Fast-forwarded '\(into)' to \(commit.short).")
        case .merged(let commit, let conflicts):
            print("Merged '\(from)' into '\(into)': \(commit.id.short).")
            for conflict in conflicts {
                print("  conflict at \(conflict.description): kept \(conflict.decision.map(Self.show) ?? "nothing")".escapedForTerminal)
            }
        }
    }

    static func show(_ value: JSONValue) -> String {
        String(decoding: value.canonicalBytes, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: " ")
    }
}
