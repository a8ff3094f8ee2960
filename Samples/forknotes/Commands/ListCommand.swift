import ArgumentParser
import ForkStore
import ForkStoreQueries
import Foundation

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the notes on a fork.",
        discussion: """
            Example: forknotes list --store notes --tag work --due-before 2026-12-01 --sort due --limit 20
            Notes are found through the store's query index (a cache beside the repository,
            rebuilt by itself when missing). With --json, prints an array of notes with id,
            title, body, tags, done, and completedAt, due and updatedAt when set, and attachments
            (name, id, size, mediaType, and local: whether the bytes are in this store yet)
            when it has any, written as it is read.
            A note file that cannot be read is named on standard error and the exit code is 1;
            the other notes are listed.
            """)

    enum Order: String, ExpressibleByArgument, CaseIterable {
        case title, due, updated, id
    }

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection
    @OptionGroup var filter: NoteFilter

    @Option(help: "Order: title, due (soonest first, undated first), updated (latest change first, notes from before version 3 last) or id. Default: title, or id with --json.")
    var sort: Order?

    @Option(help: ArgumentHelp("At most this many notes.", valueName: "n")) var limit: Int?

    @Flag(help: "Print JSON instead of lines.") var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
    }

    func run() throws {
        let store = try location.open()
        let fork = try selection.parsed()
        var query = try filter.query()
        switch sort ?? (json ? .id : .title) {
        case .title: query = query.sorted(by: \.title)
        case .due: query = query.sorted(by: \.due)
        case .updated: query = query.sorted(by: \.updatedAt, descending: true)
        case .id: break
        }
        if let limit { query = query.limit(limit) }

        var listed = 0
        let output = json ? JSONArrayWriter() : nil
        try store.forEachRecord(matching: query, in: fork) { note in
            listed += 1
            if let output {
                output.write(NoteJSON(note, isLocal: store.isLocal))
            } else {
                print(note.line + note.attachmentsLine { store.isLocal($0) })
            }
        }
        output?.finish()

        // Damaged note files are not in the index; a full listing finds them by its count.
        guard filter.isEmpty, limit == nil, listed < (try store.count(in: fork)) else { return }
        let problems = try store.damagedNoteFiles(in: fork)
        for problem in problems {
            Terminal.printError("damaged note file \(problem)")
        }
        if !problems.isEmpty {
            Terminal.printError("\(problems.count) note file(s) could not be read; see: forknotes doctor --store \(location.path)")
            throw ExitCode.failure
        }
    }
}

/// Prints a JSON array of notes one element at a time, so a long listing is never held in
/// memory: each element indented as the array's pretty-printed form would be, written to
/// standard output in blocks of about 64 KB.
final class JSONArrayWriter {
    private var count = 0
    private var pending: [UInt8] = []

    func write(_ note: NoteJSON) {
        pending.append(contentsOf: (count == 0 ? "[\n  " : ",\n  ").utf8)
        note.write(into: &pending, indent: 2)
        count += 1
        if pending.count >= 1 << 16 { flush() }
    }

    // A listing that stops on an error still writes what it had (as printing each element did).
    deinit { flush() }

    func finish() {
        pending.append(contentsOf: (count == 0 ? "[\n\n]\n" : "\n]\n").utf8)
        flush()
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        FileHandle.standardOutput.write(Data(pending))
        pending.removeAll(keepingCapacity: true)
    }
}
