import ArgumentParser
import ForkStore
import Foundation

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import notes from a JSON-lines file, in batches of one commit each.",
        discussion: """
            Example: forknotes import --store notes notes.jsonl
            Each line is one note with id, title, body, tags and done, and optionally completedAt,
            due and updatedAt as ISO 8601 dates (the form list --json writes; ids come from the file;
            an existing note with the same id is replaced). Lines that cannot be stored are
            reported on standard error, one per line, and the rest are stored. A line longer than
            4 MB (4,194,304 bytes) is reported and skipped as soon as that many bytes have come,
            so memory stays bounded whatever the file holds. The file must be a regular file of
            UTF-8 text: a folder, a device or a pipe is refused before anything is read, and the
            import stops at the first line that is not UTF-8 text (the lines before it are stored).
            Exit codes: 0 every line imported; 1 some lines were skipped (or another error).
            """)

    /// The longest line read, in bytes without its newline: four times the largest note
    /// (``StoreOptions/maximumRecordSize``, 1 MB), room for JSON escapes such as `\u00e9`
    /// that the stored record writes shorter.
    static let maximumLineLength = 4 << 20

    @OptionGroup var location: StoreLocation
    @OptionGroup var selection: ForkSelection
    @Argument(help: ArgumentHelp("The JSON-lines file.", valueName: "file")) var file: String
    @Option(help: "Notes per commit.") var batchSize: Int = 1_000

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1.") }
    }

    func run() throws {
        // The file first: one that cannot be read as lines is refused before the store opens.
        let input = try LineReader(path: file, maximumLength: Self.maximumLineLength)
        let store = try location.open()
        let fork = try selection.parsed()
        let decoder = NoteJSON.decoder
        let progress = ProgressLine()
        var skipped = 0
        var stop: LineReader.Failure?
        // Lines are read, checked and decoded one at a time, so any file size fits in memory.
        let result = try store.importRecords(
            to: fork, batchSize: batchSize, message: "Import notes",
            onSkipped: { id, _ in
                skipped += 1
                report("note \(id): larger than the record limit, not stored")
            },
            progress: { progress.show(done: $0, label: "Importing") }
        ) {
            while true {
                let number: Int, line: [UInt8]
                do throws(LineReader.Failure) {
                    switch try input.next() {
                    case nil: return nil
                    case .tooLong(let tooLong):
                        skipped += 1
                        report("line \(tooLong): longer than \(Self.maximumLineLength) bytes, not read")
                        continue
                    case .text(let textNumber, let bytes): (number, line) = (textNumber, bytes)
                    }
                } catch {
                    // The notes read so far are stored; the failure is reported after them.
                    stop = error
                    return nil
                }
                guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) else {
                    continue
                }
                do {
                    // A strict parse first: a key given twice is refused, not resolved by guesswork.
                    _ = try JSONValue(parsing: line)
                    return try decoder.decode(NoteJSON.self, from: Data(line)).note
                } catch {
                    skipped += 1
                    report("line \(number): not a note (\(Self.reason(error)))")
                }
            }
            return nil
        }
        progress.finish()
        print("Imported \(result.imported) note(s) in \(result.commits) commit(s)" + (skipped > 0 ? "; \(skipped) skipped." : "."))
        if let stop { throw stop }
        if skipped > 0 { throw ExitCode.failure }
    }

    private func report(_ message: String) {
        Terminal.printError(message)
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted: "not valid JSON"
        case let error as CanonicalJSONError: "not valid JSON: \(error.description)"
        default: "\(error)"
        }
    }
}
