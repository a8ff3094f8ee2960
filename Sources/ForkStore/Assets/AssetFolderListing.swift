import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What an asset folder holds, with each file's time and size, for collection: the objects
/// under `objects/`, and the files under `tmp/` that ForkStore names. Files of other names are
/// not ours and are never listed, so never removed.
enum AssetFolderListing {
    /// An object in place.
    struct Object {
        let id: AssetID
        let path: String
        let modified: Date
        let size: Int
    }

    /// A file under `tmp/` of a name ForkStore gives.
    struct TemporaryFile {
        enum Kind {
            /// `add-<uuid>`: an add in progress, or one killed before it finished.
            case adding
            /// `<hex>.part`: the bytes of a download so far, which a later one resumes from.
            case partial(AssetID)
            /// `collect-<hex>-<uuid>`: an object a collection set aside before removing it.
            case setAside(AssetID)
        }

        let kind: Kind
        let path: String
        let modified: Date
    }

    /// Every object in its place, with its time and size.
    static func objects(in folder: AssetFolder) -> [Object] {
        let root = (folder.root as NSString).appendingPathComponent("objects")
        var found: [Object] = []
        for first in entries(of: root) where isShard(first) {
            for second in entries(of: root + "/" + first) where isShard(second) {
                let shard = root + "/" + first + "/" + second
                for name in entries(of: shard) {
                    guard let id = AssetID(name), id.hex == name, folder.path(of: id) == shard + "/" + name,
                        let (modified, size) = status(of: shard + "/" + name)
                    else { continue }
                    found.append(Object(id: id, path: shard + "/" + name, modified: modified, size: size))
                }
            }
        }
        return found
    }

    /// The files under `tmp/` that ForkStore names.
    static func temporaryFiles(in folder: AssetFolder) -> [TemporaryFile] {
        let root = (folder.root as NSString).appendingPathComponent("tmp")
        var found: [TemporaryFile] = []
        for name in entries(of: root) {
            let path = root + "/" + name
            let kind: TemporaryFile.Kind
            if name.hasPrefix("add-") {
                kind = .adding
            } else if name.hasSuffix(".part"), let id = AssetID(String(name.dropLast(5))), id.hex + ".part" == name {
                kind = .partial(id)
            } else if name.hasPrefix("collect-"), let id = AssetID(String(name.dropFirst(8).prefix(64))),
                name.hasPrefix("collect-" + id.hex + "-")
            {
                kind = .setAside(id)
            } else {
                continue
            }
            guard let (modified, _) = status(of: path) else { continue }
            found.append(TemporaryFile(kind: kind, path: path, modified: modified))
        }
        return found
    }

    /// Where a collection sets an object aside: a name of its own, so two collections never
    /// take each other's.
    static func setAsidePath(of id: AssetID, in folder: AssetFolder) -> String {
        (folder.root as NSString).appendingPathComponent("tmp/collect-\(id.hex)-\(UUID().uuidString)")
    }

    /// The time a regular file was last written, and its size; nil for anything else.
    static func status(of path: String) -> (modified: Date, size: Int)? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return (Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9), Int(info.st_size))
    }

    private static func entries(of folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    }

    private static func isShard(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
