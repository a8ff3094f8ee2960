import Foundation

/// The commit a store's query index file holds rows of `fork` for, read by Python's sqlite3 as
/// an outside reader (the tests have no SQLite of their own); nil when there is no file, or
/// no rows of that fork.
public func indexedHead(of fork: String = "main", inStoreAt path: String) async throws -> String? {
    let file = path + "/forkstore-index.sqlite"
    guard FileManager.default.fileExists(atPath: file) else { return nil }
    let script = """
        import sqlite3, sys
        row = sqlite3.connect(sys.argv[1]).execute("SELECT commitID FROM heads WHERE fork = ?", (sys.argv[2],)).fetchone()
        print(row[0] if row else "")
        """
    let read = try await run("/usr/bin/env", ["python3", "-c", script, file, fork])
    guard read.status == 0 else { throw IndexFileUnreadable(reason: read.stderr) }
    let head = read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    return head.isEmpty ? nil : head
}

/// Python's sqlite3 could not read an index file.
public struct IndexFileUnreadable: Error {
    public let reason: String
}
