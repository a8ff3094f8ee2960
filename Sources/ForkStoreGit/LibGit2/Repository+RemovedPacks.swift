internal import CLibGit2
import Foundation

extension Repository {
    /// Gives this handle a fresh object database when a pack it may have opened has been
    /// removed (by a roll-up, here or in another process); does nothing otherwise.
    ///
    /// libgit2 never forgets a pack it has opened: `git_odb_refresh` only adds new ones, so a
    /// removed pack's index stays mapped for as long as the handle lives. A long-lived handle
    /// then grows with every roll-up: 60 MB of indexes of removed packs over a 1 GB import.
    /// One `stat` of the pack folder tells whether anything changed since the last call.
    ///
    /// Call it only where nothing else uses the handle's object database: not during a batch
    /// or a fetch (whose backends live in it). Batch handles, whose database is in memory,
    /// are left alone.
    package func forgetRemovedPacks() {
        guard batch == nil, packCheck == nil else { return }
        let folder = gitDirectory + "objects/pack"
        var status = stat()
        guard stat(folder, &status) == 0 else { return }
        #if canImport(Darwin)
        let changed = status.st_mtimespec
        #else
        let changed = status.st_mtim
        #endif
        if let seen = packsSeen.changed, seen.tv_sec == changed.tv_sec, seen.tv_nsec == changed.tv_nsec { return }
        let names = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".idx") })
        let removed = !packsSeen.names.isSubset(of: names)
        // A folder's time moves in the kernel's coarse ticks (4 ms here): a roll-up that adds
        // its pack and removes the old ones within one tick leaves the time it had when the
        // new pack alone was seen. A time that recent is not trusted to mean "unchanged", as
        // git treats a racily clean index entry; the folder is listed again next time.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let settled = now.tv_sec - changed.tv_sec > 1
        packsSeen = (packsSeen.names.union(names), settled ? changed : nil)
        guard removed else { return }
        var fresh: OpaquePointer?
        guard git_odb_open(&fresh, gitDirectory + "objects") == 0, let fresh else { return }
        guard git_repository_set_odb(pointer, fresh) == 0 else {
            git_odb_free(fresh)
            return
        }
        git_odb_free(odb)
        odb = fresh
        packsSeen = (names, settled ? changed : nil)
    }
}
