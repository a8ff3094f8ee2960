import ForkStoreGit
import Foundation

/// git's lock files on a store's refs, and which of them a writer may remove (FORMAT.md §11).
///
/// git never removes a lock file, and cannot tell a live holder from a dead one: it creates the
/// file with `O_EXCL`, closes it once written and renames it when done, so a `git update-ref`
/// between `prepare` and `commit` holds `main.lock` with no process having it open. ForkStore
/// therefore removes only what it can explain:
///
/// - a lock a writer of its own left when it was killed: before it moves a ref, a writer notes
///   the move (`<ref name> <new id>\n`, deletion: 40 zeros) in `forkstore.flock`, and clears
///   the note once done. The next writer, on taking the `flock`, finds the note: its writer
///   died. That ref's lock file, if it holds nothing but a beginning of the noted line (what
///   libgit2 writes into it), was that writer's and is removed;
/// - a lock file no process has open (where the system tells, through `/proc`) and that nobody
///   has modified for ``staleAge`` (a holder may keep its lock by touching it).
///
/// Any other lock file is someone's live lock: it is waited for, and the write then fails as
/// ``StoreError/locked(path:)``.
enum GitLockFiles {
    /// How long a lock file must have been left untouched (and unopened) to count as stale:
    /// ten minutes, past any git command that holds a ref lock (they take milliseconds; git's
    /// own wait for a ref lock, `core.filesRefLockTimeout`, is 100 ms), short enough that a
    /// store a crashed `git` left locked is writable again the same session.
    static var staleAge: TimeInterval { 600 }

    /// The note a writer leaves in the writer lock's file while it moves `reference` to
    /// `target` (nil: deletes it).
    static func note(moving reference: String, to target: ObjectID?) -> String {
        "\(reference) \((target ?? .zero).hex)\n"
    }

    /// Removes the lock file a killed writer left, as `note` (found in the writer lock's file
    /// on taking it) describes; returns its path if it removed one. A lock file holding
    /// anything but a beginning of the noted line is someone else's and stays.
    static func removeLeftover(noted note: String, gitDirectory: String) -> String? {
        let fields = note.split(separator: " ")
        guard note.hasSuffix("\n"), fields.count == 2, fields[0].hasPrefix("refs/"), !fields[0].contains("..") else { return nil }
        let path = gitDirectory + fields[0] + ".lock"
        guard let contents = FileManager.default.contents(atPath: path),
            contents.count <= fields[1].utf8.count, fields[1].utf8.starts(with: contents)
        else { return nil }
        return (try? FileManager.default.removeItem(atPath: path)) != nil ? path : nil
    }

    /// Whether the lock file at `path` is stale by the age rule: untouched for ``staleAge`` and
    /// not open in any process. False when there is no such file.
    static func isStale(_ path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let modified = attributes[.modificationDate] as? Date
        else { return false }
        return Date().timeIntervalSince(modified) >= staleAge && isOpenByAnyProcess(path) != true
    }

    /// Whether any process this user may inspect has `path` open; nil where the system does not
    /// say (no `/proc`).
    static func isOpenByAnyProcess(_ path: String) -> Bool? {
        let fileManager = FileManager.default
        guard let processes = try? fileManager.contentsOfDirectory(atPath: "/proc") else { return nil }
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        for process in processes where process.utf8.allSatisfy({ (48...57).contains($0) }) {
            let folder = "/proc/\(process)/fd/"
            for descriptor in (try? fileManager.contentsOfDirectory(atPath: folder)) ?? [] {
                if (try? fileManager.destinationOfSymbolicLink(atPath: folder + descriptor)) == target { return true }
            }
        }
        return false
    }
}
