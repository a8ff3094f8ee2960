import ForkStorePack
import GRDB
import GRDBSQLite

extension Database {
    /// The rows of a query that selects a record's path and its blob's id, in its order, read
    /// through SQLite's own calls, every one of them checked here.
    ///
    /// A listing through the index reads a row per record before it decodes any, on one
    /// thread: through GRDB's `Row` (a column decoded by its generic conversions, an access
    /// check per value) the 100,000 rows of a whole fork took that thread 80 ms, where SQLite
    /// stepped through them in about 20.
    ///
    /// Stepped past GRDB, so without its hooks: no access is registered for its observation
    /// and an interrupt is not made a cancellation. The index uses neither.
    ///
    /// - Throws: `SQLITE_CORRUPT` for a row that names no path (a value that is not text: the
    ///   index writes paths as text) or no blob (anything but 40 hexadecimal digits): damage
    ///   the index repairs.
    func pathsAndBlobs(_ sql: String, arguments: StatementArguments) throws -> [(path: String, id: ObjectID)] {
        let statement = try makeStatement(sql: sql)
        try statement.setArguments(arguments)
        // GRDB finalizes the statement when it is released: not before the last step.
        return try withExtendedLifetime(statement) {
            let raw = statement.sqliteStatement
            guard sqlite3_column_count(raw) == 2 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the query selects other columns than a path and a blob", sql: sql)
            }
            // SQLite's own code and message for what it said last.
            func failure(_ code: Int32) -> DatabaseError {
                DatabaseError(resultCode: ResultCode(rawValue: code), message: sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
            }
            var rows: [(path: String, id: ObjectID)] = []
            while true {
                let code = sqlite3_step(raw)
                if code == SQLITE_DONE { return rows }
                guard code == SQLITE_ROW else { throw failure(code) }
                // Text first, then its length, as SQLite asks: the length of the value as text.
                guard sqlite3_column_type(raw, 0) == SQLITE_TEXT, let pathText = sqlite3_column_text(raw, 0), let blobText = sqlite3_column_text(raw, 1) else {
                    // No text is also what SQLite gives when it runs out of memory: not damage.
                    if let connection = sqliteConnection, sqlite3_errcode(connection) == SQLITE_NOMEM { throw failure(SQLITE_NOMEM) }
                    throw Self.noPathOrBlob
                }
                let path = String(decoding: UnsafeBufferPointer(start: pathText, count: Int(sqlite3_column_bytes(raw, 0))), as: UTF8.self)
                guard let id = ObjectID(hexDigits: UnsafeRawBufferPointer(start: blobText, count: Int(sqlite3_column_bytes(raw, 1)))) else {
                    throw Self.noPathOrBlob
                }
                rows.append((path, id))
            }
        }
    }

    private static var noPathOrBlob: DatabaseError {
        DatabaseError(resultCode: .SQLITE_CORRUPT, message: "a row of the index names no record path or no blob")
    }
}
