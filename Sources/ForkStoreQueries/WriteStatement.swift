import GRDB
import GRDBSQLite

/// A statement that writes and returns no rows (an insert, a delete), run through SQLite's
/// own calls, every one of them checked here.
///
/// An index rebuild inserts a row per record and per tag, on one thread. Through GRDB's
/// `StatementArguments` (built from `DatabaseValue`s, validated, then bound) the arguments
/// cost that thread more than SQLite's inserts did, so the rows' values are bound as they are
/// kept, ``IndexValue``s.
///
/// Run inside a transaction GRDB opened; the statement is finalized when this is released,
/// which must be before the connection closes.
final class WriteStatement {
    private let statement: OpaquePointer
    private let sql: String

    init(_ sql: String, in db: Database) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the index's connection is closed", sql: sql)
        }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(connection, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        (statement, self.sql) = (prepared, sql)
    }

    deinit { sqlite3_finalize(statement) }

    /// Runs the statement once with `values` bound to its parameters, in order.
    func run(_ values: [IndexValue]) throws {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            try check(bind(value, at: Int32(offset + 1)))
        }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else { return try check(code == SQLITE_ROW ? SQLITE_MISUSE : code) }
    }

    private func bind(_ value: IndexValue, at position: Int32) -> Int32 {
        switch value {
        case .null: sqlite3_bind_null(statement, position)
        case .integer(let integer): sqlite3_bind_int64(statement, position, integer)
        case .real(let real): sqlite3_bind_double(statement, position, real)
        case .text(var text):
            // Copied by SQLite (the transient destructor), so the bytes need outlive only the
            // call. No address would bind NULL, so empty text is bound from a literal.
            text.withUTF8 { bytes in
                guard let start = bytes.baseAddress else { return sqlite3_bind_text(statement, position, "", 0, Self.transient) }
                return sqlite3_bind_text64(statement, position, start, UInt64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
            }
        }
    }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK else { return }
        let message = sqlite3_db_handle(statement).map { String(cString: sqlite3_errmsg($0)) }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes before the call returns.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
}
