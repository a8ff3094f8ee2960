import ForkStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The assets of a path remote: files in the remote repository's own `lfs/objects`, laid out
/// as git-lfs lays them out (`lfs/objects/<hex 0-1>/<hex 2-3>/<hex>`, in the git directory:
/// `<repo>/lfs` for a bare repository, `<repo>/.git/lfs` for one with a working folder), so
/// stock `git lfs` reads what ForkStore puts there and the other way round.
///
/// Both directions copy a megabyte at a time into the receiving folder's partial file
/// (`lfs/tmp/<hex>.part`), resume from its length after a kill, fsync, and move the object
/// into place only once it hashes to its id (``AssetFolder/receive(_:size:from:pause:progress:)``).
/// An upload skips objects the remote has with the right size.
package struct PathAssetTransport: AssetTransport {
    /// The remote's asset folder.
    package let remote: AssetFolder
    /// A wait between megabytes, for tests that stop a transfer half-way; zero otherwise.
    package let pause: Duration

    /// The transport of the repository at `repository`: its git directory is the folder itself
    /// when it holds `HEAD`, `objects` and `refs` (a bare repository), else its `.git`.
    package init(repository: String, pause: Duration = .zero) {
        self.remote = AssetFolder(gitDirectory: Self.gitDirectory(of: repository))
        self.pause = pause
    }

    /// The git directory of the repository at `path`.
    package static func gitDirectory(of path: String) -> String {
        let isBare = ["HEAD", "objects", "refs"].allSatisfy {
            FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent($0))
        }
        return isBare ? path : (path as NSString).appendingPathComponent(".git")
    }

    package func upload(_ objects: [AssetObject], from folder: AssetFolder, progress: (AssetTransferCount) -> Void) throws -> Int {
        var sent = 0
        for object in objects where !remote.contains(object.id, size: object.size) {
            guard folder.contains(object.id, size: object.size) else { throw AssetTransferFailure.missingLocally(object.id) }
            try refuseLinkedFolders(for: object.id)
            do {
                _ = try remote.receive(object.id, size: object.size, from: folder.path(of: object.id), pause: pause) { bytes in
                    progress(AssetTransferCount(object: object, bytes: bytes))
                }
            } catch {
                throw remoteFailure(error) ?? error
            }
            sent += 1
        }
        return sent
    }

    package func download(_ objects: [AssetObject], into folder: AssetFolder, progress: (AssetTransferCount) -> Void) throws {
        for object in objects where !folder.contains(object.id, size: object.size) {
            let source = remote.path(of: object.id)
            guard FileManager.default.fileExists(atPath: source) else { throw AssetTransferFailure.missingOnRemote(object.id) }
            do {
                _ = try folder.receive(object.id, size: object.size, from: source, pause: pause) { bytes in
                    progress(AssetTransferCount(object: object, bytes: bytes))
                }
            } catch {
                // The remote's bytes: wrong size, not a file, or not hashing to the id.
                if error.code == .assetCorrupt { throw AssetTransferFailure.corrupt(object.id, reason: error.reason ?? error.message) }
                throw remoteFailure(error) ?? error
            }
        }
    }

    /// Refuses to write through a folder of the remote's `lfs/` that is a symbolic link: the
    /// remote's contents must not steer an upload's bytes (and its partial file, truncated or
    /// removed) into a folder elsewhere.
    private func refuseLinkedFolders(for id: AssetID) throws {
        let objectFolder = (remote.path(of: id) as NSString).deletingLastPathComponent
        let shardFolder = (objectFolder as NSString).deletingLastPathComponent
        for folder in [remote.root, remote.root + "/objects", shardFolder, objectFolder, remote.root + "/tmp"] {
            var info = stat()
            if lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                throw TransferFailure.corruptData(
                    reason: "\(folder) is a symbolic link; assets are written only inside the remote's own lfs folder")
            }
        }
    }

    /// A failure of the file system at the remote's folder, as a transfer failure (the remote
    /// is read-only for us, or went away); nil for one of the local store's.
    private func remoteFailure(_ error: StoreError) -> TransferFailure? {
        guard error.code == .fileSystem, let path = error.path, path.hasPrefix(remote.root) else { return nil }
        let reason = "\(path): \(error.reason ?? error.message)"
        switch error.underlyingCode {
        case EACCES?, EPERM?, EROFS?: return .accessDenied(reason: reason)
        case ENOENT?, ENOTDIR?, ENXIO?, ENODEV?, EIO?: return .unreachable(reason: reason)
        default: return .transport(reason: reason)
        }
    }
}
