import ForkStore
import ForkStorePack
import Foundation
import GRDB
import ForkStoreLocks

/// A collection's derived index: a SQLite file (`forkstore-index.sqlite`) beside the
/// repository, which stays the truth.
///
/// One file serves every fork: each row is keyed by fork and record path, and each fork's row
/// set records the commit it reflects. Forks share most of their records, so a fork seen for
/// the first time starts as a copy of an indexed fork's rows brought forward by the tree
/// difference between the two heads, rather than from a full scan. Bringing a fork forward
/// reads the tree difference between the commit its rows reflect and its head, so it costs
/// what the change costs. Each update is one SQLite transaction that moves the rows and the
/// recorded commit together: a process killed midway leaves the previous state, which the
/// next query finds stale and brings forward.
///
/// The index is never needed for correctness. A missing file is rebuilt; a damaged one (not a
/// database, corrupt pages, a row that names no blob) is deleted and rebuilt; one written for
/// other fields, another model version or another layout of this file is rebuilt; one whose
/// recorded commit is not in the store (a copied file) is rebuilt. Where the file cannot be
/// written (a read-only store) the index lives in memory.
///
/// The file is made only once the store has been read: it is built under a temporary name
/// and linked into place when it holds the first fork's rows, so a query that fails (a fork
/// naming a missing object, say) leaves no file behind, and no process sees one half made.
final class RecordIndex<Record: IndexedRecord>: Sendable {
    static var fileName: String { "forkstore-index.sqlite" }
    /// The layout of this file; a file of another layout is rebuilt.
    static var layoutVersion: Int { 2 }

    private let path: String
    private let fields: [IndexedField<Record>]
    /// Opened by the first query, once the store has been read.
    private let database = Locked<(any DatabaseWriter)?>(nil)
    /// Where bringing `main` forward reports while a sync lands a fetch on it: whichever query
    /// does it (a live query woken by the move may come first), the sync's events say so.
    private let landingProgress = Locked<RecordProgress?>(nil)

    init(storePath: String) {
        path = (storePath as NSString).appendingPathComponent(Self.fileName)
        fields = Record.indexedFields
    }

    // MARK: Answering queries

    /// Where the query's records are stored, in its order, and the head they were read at;
    /// nil when the index cannot answer the query. A row that names no path or no blob is
    /// damage: the file is made again (``repairingDamage(seed:_:)``).
    func rows(matching query: RecordQuery<Record>, in fork: Fork, of store: RecordStore<Record>) throws -> (Commit, [(path: String, id: ObjectID)])? {
        guard let (sql, arguments) = select("path, blob", for: query, in: fork, paged: true) else { return nil }
        return try withFreshRows(of: fork, in: store) { db in try db.pathsAndBlobs(sql, arguments: arguments) }
    }

    /// How many records match the query's filters, or nil when the index cannot answer it.
    func count(matching query: RecordQuery<Record>, in fork: Fork, of store: RecordStore<Record>) throws -> Int? {
        let sql: String, arguments: StatementArguments
        // One containment filter alone: count its entries, without visiting the records.
        if query.filters.count == 1, case .contains(let value) = query.filters[0].condition,
            let position = fields.firstIndex(where: { $0.keyPath == query.filters[0].keyPath && $0.isCollection })
        {
            (sql, arguments) = ("SELECT COUNT(*) FROM items WHERE fork = ? AND field = ? AND value = ?", [fork.name, position, value.databaseValue])
        } else if let select = select("COUNT(*)", for: query, in: fork, paged: false) {
            (sql, arguments) = select
        } else {
            return nil
        }
        return try withFreshRows(of: fork, in: store) { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }.1
    }

    /// Brings the fork's rows to its head (see the type's discussion).
    func refresh(_ fork: Fork, of store: RecordStore<Record>) throws {
        _ = try withFreshRows(of: fork, in: store) { _ in () }
    }

    /// Reports how far each bringing forward of `main` goes to `progress` (nil: to nothing):
    /// records written of those that changed since the rows' last head.
    func reportingLanding(to progress: RecordProgress?) {
        landingProgress.withLock { $0 = progress }
    }

    /// The SQL for a query, or nil when a filter or sort key is not an indexed field of the
    /// kind it needs.
    private func select(_ columns: String, for query: RecordQuery<Record>, in fork: Fork, paged: Bool) -> (String, StatementArguments)? {
        var conditions = ["fork = ?"]
        var arguments: [DatabaseValue] = [fork.name.databaseValue]
        for filter in query.filters {
            guard let position = fields.firstIndex(where: { $0.keyPath == filter.keyPath }) else { return nil }
            let column = "f\(position)"
            switch (filter.condition, fields[position].isCollection) {
            case (.contains(let value), true):
                conditions.append("path IN (SELECT path FROM items WHERE fork = ? AND field = ? AND value = ?)")
                arguments += [fork.name.databaseValue, position.databaseValue, value.databaseValue]
            case (.equals(let value), false):
                conditions.append("\(column) IS ?")
                arguments.append(value.databaseValue)
            case (.below(let value, let inclusive), false):
                conditions.append("\(column) \(inclusive ? "<=" : "<") ?")
                arguments.append(value.databaseValue)
            case (.above(let value, let inclusive), false):
                conditions.append("\(column) \(inclusive ? ">=" : ">") ?")
                arguments.append(value.databaseValue)
            default:
                return nil
            }
        }
        var sql = "SELECT \(columns) FROM records WHERE " + conditions.joined(separator: " AND ")
        if paged {
            // Without a limit every matching row is read: sorted in memory (a unary `+` keeps
            // SQLite from ordering through an index), they are read in the table's own order,
            // where following an index reads a page for almost every row (a 100,000-note listing
            // took 0.3 s of CPU in the query alone, 0.1 s sorted). A whole fork in id order is
            // the exception: `records_by_id` holds every column it reads, so it is read in order
            // from that index alone, with no sort (0.06 s).
            let sortsInMemory = query.limit == nil && query.offset == 0 && !(query.filters.isEmpty && query.sorts.isEmpty)
            var order: [String] = []
            for sort in query.sorts {
                guard let position = fields.firstIndex(where: { $0.keyPath == sort.keyPath && !$0.isCollection }) else { return nil }
                order.append("f\(position)" + (sort.descending ? " DESC" : ""))
            }
            sql += " ORDER BY " + (order + ["id"]).map { sortsInMemory ? "+" + $0 : $0 }.joined(separator: ", ")
            if query.limit != nil || query.offset > 0 {
                sql += " LIMIT ? OFFSET ?"
                arguments += [(query.limit ?? -1).databaseValue, query.offset.databaseValue]
            }
        }
        return (sql, StatementArguments(arguments))
    }

    // MARK: Keeping rows fresh

    /// Runs `body` on rows that reflect the fork's head: read-only when they already do, in
    /// one write transaction with the update when they do not. A damaged file is replaced and
    /// the work done again.
    private func withFreshRows<Result>(
        of fork: Fork, in store: RecordStore<Record>, _ body: (Database) throws -> Result
    ) throws -> (Commit, Result) {
        let head = try store.readableHead(of: fork)
        let progress = fork == .main ? landingProgress.withLock { $0 } : nil
        let seed = { (db: Database) in try self.bring(fork, to: head, of: store, progress: progress, in: db) }
        return try repairingDamage(seed: seed) { database in
            let fresh = try database.read { db -> Result? in
                try self.indexedHead(of: fork, in: db) == head.id.hex ? body(db) : nil
            }
            if let fresh { return (head, fresh) }
            return (head, try database.write { db in
                try self.bring(fork, to: head, of: store, progress: progress, in: db)
                return try body(db)
            })
        }
    }

    private func indexedHead(of fork: Fork, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT commitID FROM heads WHERE fork = ?", arguments: [fork.name])
    }

    private func bring(_ fork: Fork, to head: Commit, of store: RecordStore<Record>, progress: RecordProgress?, in db: Database) throws {
        let indexed = try indexedHead(of: fork, in: db)
        guard indexed != head.id.hex else { return }
        if let indexed, let old = CommitID(indexed), let differences = try store.recordDifferences(from: old, to: head) {
            try apply(differences, at: head, to: fork, of: store, progress: progress, in: db)
        } else if let (other, otherHead) = try nearestIndexedFork(to: fork, in: db),
            let differences = try store.recordDifferences(from: otherHead, to: head)
        {
            try removeRows(of: fork, in: db)
            try db.execute(sql: "INSERT INTO records SELECT ?, path, id, blob\(Self.fieldColumns(fields)) FROM records WHERE fork = ?", arguments: [fork.name, other])
            try db.execute(sql: "INSERT INTO items SELECT ?, path, field, value FROM items WHERE fork = ?", arguments: [fork.name, other])
            try apply(differences, at: head, to: fork, of: store, progress: progress, in: db)
        } else {
            try rebuildRows(of: fork, at: head, of: store, progress: progress, in: db)
        }
        try db.execute(sql: "INSERT OR REPLACE INTO heads (fork, commitID) VALUES (?, ?)", arguments: [fork.name, head.id.hex])
    }

    /// Another fork whose rows can start this one's (`main` when it is indexed).
    private func nearestIndexedFork(to fork: Fork, in db: Database) throws -> (String, CommitID)? {
        let rows = try Row.fetchAll(db, sql: "SELECT fork, commitID FROM heads WHERE fork != ? ORDER BY fork != 'main'", arguments: [fork.name])
        for row in rows {
            guard let name = try? row.decode(String.self, atIndex: 0), let head = try? row.decode(String.self, atIndex: 1),
                let id = CommitID(head)
            else { continue }
            return (name, id)
        }
        return nil
    }

    /// The field columns as a list to follow others (", f0, f1").
    private static func fieldColumns(_ fields: [IndexedField<Record>]) -> String { fields.indices.map { ", f\($0)" }.joined() }

    private func removeRows(of fork: Fork, in db: Database) throws {
        try db.execute(sql: "DELETE FROM records WHERE fork = ?", arguments: [fork.name])
        try db.execute(sql: "DELETE FROM items WHERE fork = ?", arguments: [fork.name])
    }

    /// Every row of a fork made again from its head, without the secondary indexes (one
    /// sorted build each after, instead of an index update per row). The records are inserted
    /// as they are decoded, so memory stays bounded.
    private func rebuildRows(of fork: Fork, at head: Commit, of store: RecordStore<Record>, progress: RecordProgress?, in db: Database) throws {
        try removeRows(of: fork, in: db)
        try withoutSecondaryIndexes(if: true, in: db) {
            let insert = try inserting(fork, in: db, replacing: false)
            let forkName = fork.name, fields = fields
            try store.forEachIndexableRecord(at: head, making: { Self.rows(of: $0, in: forkName, fields: fields) }, progress: progress) {
                try insert($0)
            }
        }
    }

    /// Brings a fork's rows over the record files that differ at `head`: rows of paths
    /// removed go, records saved are decoded and written as they come (a record that cannot be
    /// read has no rows). Many at once (a first sync's) are written without the secondary
    /// indexes, made again after.
    private func apply(
        _ differences: (removed: [String], saved: [(path: String, id: ObjectID)]), at head: Commit, to fork: Fork,
        of store: RecordStore<Record>, progress: RecordProgress?, in db: Database
    ) throws {
        try withoutSecondaryIndexes(if: isLarge(differences.saved.count, in: db), in: db) {
            let deleteRecord = try WriteStatement("DELETE FROM records WHERE fork = ? AND path = ?", in: db)
            let deleteItems = try WriteStatement("DELETE FROM items WHERE fork = ? AND path = ?", in: db)
            let forkName = IndexValue.text(fork.name)
            func remove(_ path: String) throws {
                try deleteRecord.run([forkName, .text(path)])
                try deleteItems.run([forkName, .text(path)])
            }
            for path in differences.removed { try remove(path) }
            let insert = try inserting(fork, in: db, replacing: true)
            let name = fork.name, fields = fields
            try store.forEachIndexableRecord(
                differences.saved, at: head, making: { Self.rows(of: $0, in: name, fields: fields) }, unreadable: remove, progress: progress
            ) { try insert($0) }
        }
    }

    /// Whether writing `count` records is better done without the secondary indexes, made
    /// again after in one sort each: when they are many, and more than half the rows there
    /// are. (Through the indexes, a first sync's 100,000 notes took 3.8 s to write, the rows
    /// reaching the indexes' pages in no order; without them, 0.6 s with the sorts.)
    private func isLarge(_ count: Int, in db: Database) throws -> Bool {
        guard count > 4096 else { return false }
        return try count * 2 > (Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records") ?? 0)
    }

    /// Runs `body` with the secondary indexes dropped when `dropping`, then makes them again
    /// (each one sort of every row, which SQLite's sorter may share among threads) and the
    /// statistics the query planner chooses by.
    private func withoutSecondaryIndexes(if dropping: Bool, in db: Database, _ body: () throws -> Void) throws {
        guard dropping else { return try body() }
        // A larger page cache for the write: with SQLite's 2 MB, pages went into the WAL again
        // and again before the commit (a first sync's 100,000 notes took 0.6 s more). 32 MB
        // was no faster than 16, and took 4 MB more at the sync's peak.
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -16384")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        let indexes = Self.secondaryIndexes(fields)
        for index in indexes { try db.execute(sql: "DROP INDEX IF EXISTS \(index.name)") }
        try body()
        try db.execute(sql: "PRAGMA threads = \(ProcessInfo.processInfo.activeProcessorCount)")
        for index in indexes { try db.execute(sql: index.sql) }
        // Statistics let SQLite choose between a field's index and a tag's entries: without
        // them it may walk a whole sort index to find 20 rows of a rare tag.
        try db.execute(sql: "ANALYZE")
    }

    /// One record's rows, as ``WriteStatement`` binds them: the `records` row and an `items`
    /// row per element of each collection field.
    private struct Rows: Sendable {
        let path: String
        let record: [IndexValue]
        let items: [[IndexValue]]
    }

    /// A record's ``Rows``. Made where the record is decoded: on a rebuild, making them took
    /// more of the writing thread's time than SQLite's inserts did.
    private static func rows(of saved: IndexableRecord<Record>, in fork: String, fields: [IndexedField<Record>]) -> Rows {
        var record: [IndexValue] = [.text(fork), .text(saved.path), .text(saved.record.id), .text(saved.blob)]
        record.reserveCapacity(4 + fields.count)
        var items: [[IndexValue]] = []
        for position in fields.indices {
            let values = fields[position].values(saved.record)
            if fields[position].isCollection {
                record.append(.null)
                for value in values { items.append([.text(fork), .text(saved.path), .integer(Int64(position)), value]) }
            } else {
                record.append(values.first ?? .null)
            }
        }
        return Rows(path: saved.path, record: record, items: items)
    }

    /// Writes one record's rows; with `replacing`, over the rows it had.
    private func inserting(_ fork: Fork, in db: Database, replacing: Bool) throws -> (Rows) throws -> Void {
        let deleteItems = try WriteStatement("DELETE FROM items WHERE fork = ? AND path = ?", in: db)
        let placeholders = String(repeating: ", ?", count: fields.count)
        let insertRecord = try WriteStatement("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?\(placeholders))", in: db)
        let insertItem = try WriteStatement("INSERT OR IGNORE INTO items VALUES (?, ?, ?, ?)", in: db)
        let forkName = IndexValue.text(fork.name)
        return { rows in
            if replacing { try deleteItems.run([forkName, .text(rows.path)]) }
            for item in rows.items { try insertItem.run(item) }
            try insertRecord.run(rows.record)
        }
    }

    // MARK: The file

    /// Opens the file with this build's schema; a file that is not a database is replaced, one
    /// of another layout or field list is emptied (`prepare`). A missing file is made with
    /// `seed`'s rows (`make`). In memory when the folder cannot be written.
    private static func open(_ path: String, fields: [IndexedField<Record>], seed: (Database) throws -> Void) throws -> any DatabaseWriter {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "ForkStore index"
        // A cache: a transaction lost to a power cut leaves rows of an older head, which the
        // next query brings forward, so commits need not wait for fsync (WAL stays consistent).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        func pool() throws -> any DatabaseWriter {
            let database = try DatabasePool(path: path, configuration: configuration)
            try prepare(database, fields: fields)
            return database
        }
        if FileManager.default.fileExists(atPath: path) {
            do {
                return try pool()
            } catch let error as DatabaseError where isDamage(error) {
                removeFiles(at: path)
            } catch {
                return try inMemory(fields: fields, configuration: configuration)  // a read-only folder, say
            }
        }
        guard try make(path, fields: fields, configuration: configuration, seed: seed),
            let database = try? pool()
        else {
            return try inMemory(fields: fields, configuration: configuration)
        }
        return database
    }

    /// Makes the file at `path`: a database of this build's schema, written under a temporary
    /// name, filled by `seed`, then linked into place. Linked, not renamed: a file another
    /// process put there first is kept, since two files must never share one `-wal`. Returns
    /// false, leaving nothing behind, when the folder cannot be written; `seed`'s errors are
    /// thrown, leaving nothing behind either.
    private static func make(
        _ path: String, fields: [IndexedField<Record>], configuration: Configuration, seed: (Database) throws -> Void
    ) throws -> Bool {
        let temporary = path + ".new-" + UUID().uuidString.prefix(8)
        defer { removeFiles(at: temporary) }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: temporary, configuration: configuration)
            try prepare(queue, fields: fields)
        } catch {
            return false
        }
        do {
            try queue.write(seed)
            try queue.close()
        } catch {
            try? queue.close()
            throw error
        }
        return link(temporary, path) == 0 || errno == EEXIST
    }

    private static func inMemory(fields: [IndexedField<Record>], configuration: Configuration) throws -> any DatabaseWriter {
        let database = try DatabaseQueue(configuration: configuration)
        try prepare(database, fields: fields)
        return database
    }

    /// What identifies the rows this build writes: the file's layout, the record type, its
    /// model version and its indexed fields.
    private static func signature(of fields: [IndexedField<Record>]) -> String {
        let list = fields.map { "\($0.name)\($0.isCollection ? "[]" : "")" }.joined(separator: ",")
        return "layout \(layoutVersion); \(String(reflecting: Record.self)) v\(Record.modelVersion); fields \(list)"
    }

    /// The indexes beside the tables' keys: by tag value, by id, and by each single field.
    private static func secondaryIndexes(_ fields: [IndexedField<Record>]) -> [(name: String, sql: String)] {
        [("items_by_value", "CREATE INDEX items_by_value ON items (fork, field, value)"),
         // With `blob` (and `path`, the key, which every index holds), it answers a listing by id.
         ("records_by_id", "CREATE INDEX records_by_id ON records (fork, id, blob)")]
            + fields.indices.filter { !fields[$0].isCollection }.map { position in
                ("records_by_f\(position)", "CREATE INDEX records_by_f\(position) ON records (fork, f\(position), id)")
            }
    }

    private static func prepare(_ database: any DatabaseWriter, fields: [IndexedField<Record>]) throws {
        let signature = signature(of: fields)
        try database.write { db in
            if try db.tableExists("meta"),
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'signature'") == signature
            {
                return
            }
            for table in ["meta", "heads", "records", "items"] { try db.execute(sql: "DROP TABLE IF EXISTS \(table)") }
            let columns = fieldColumns(fields)
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE heads (fork TEXT PRIMARY KEY, commitID TEXT NOT NULL);
                CREATE TABLE records (
                    fork TEXT NOT NULL, path TEXT NOT NULL, id TEXT NOT NULL, blob TEXT NOT NULL\(columns),
                    PRIMARY KEY (fork, path)) WITHOUT ROWID;
                CREATE TABLE items (
                    fork TEXT NOT NULL, path TEXT NOT NULL, field INTEGER NOT NULL, value,
                    PRIMARY KEY (fork, path, field, value)) WITHOUT ROWID;
                """)
            for index in secondaryIndexes(fields) { try db.execute(sql: index.sql) }
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('signature', ?)", arguments: [signature])
        }
    }

    /// Runs `work` on the database (opened, or made with `seed`'s rows, on first use); when
    /// it finds the file damaged, replaces the file and runs `work` once more.
    private func repairingDamage<Result>(seed: (Database) throws -> Void, _ work: (any DatabaseWriter) throws -> Result) throws -> Result {
        let current = try database.withLock { database in
            if let database { return database }
            let opened = try Self.open(path, fields: fields, seed: seed)
            database = opened
            return opened
        }
        do {
            return try work(current)
        } catch let error as DatabaseError where Self.isDamage(error) {
            let replacement = try database.withLock { database -> any DatabaseWriter in
                try? (database as? DatabasePool)?.close()
                Self.removeFiles(at: path)
                let opened = try Self.open(path, fields: fields, seed: seed)
                database = opened
                return opened
            }
            return try work(replacement)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // A file this process may read but not write (a store opened by another user, or
            // a read-only folder whose WAL files were left in place): the rows are kept in
            // memory instead, as when the file cannot be opened at all.
            let replacement = try database.withLock { database -> any DatabaseWriter in
                try? (database as? DatabasePool)?.close()
                let opened = try Self.inMemory(fields: fields, configuration: Configuration())
                database = opened
                return opened
            }
            return try work(replacement)
        }
    }

    private static func isDamage(_ error: DatabaseError) -> Bool {
        [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode)
    }

    private static func removeFiles(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

extension IndexValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}
