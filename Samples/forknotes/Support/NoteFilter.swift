import ArgumentParser
import ForkStore
import ForkStoreQueries
import Foundation

/// `--tag` and `--due-before`, taken by `list` and `count`.
struct NoteFilter: ParsableArguments {
    @Option(help: ArgumentHelp("Only notes with this tag.", valueName: "tag")) var tag: String?

    @Option(help: ArgumentHelp("Only notes due before this day (YYYY-MM-DD, UTC).", valueName: "date"))
    var dueBefore: String?

    func validate() throws {
        if let dueBefore { _ = try DueDate.parse(dueBefore) }
    }

    var isEmpty: Bool { tag == nil && dueBefore == nil }

    /// The query for these filters, in id order.
    func query() throws -> RecordQuery<Note> {
        var query = RecordQuery<Note>()
        if let tag { query = query.filter(\.tags, contains: tag) }
        if let dueBefore { query = query.filter(\.due, lessThan: try DueDate.parse(dueBefore)) }
        return query
    }
}
