import ForkStore
import ForkStorePack
import Foundation

/// What a hostile peer plants on a remote to make a sync pay far more than the remote sent:
/// one commit whose record `bomb` is very large once taken in.
public enum Bomb: String, CaseIterable, Sendable, CustomStringConvertible {
    /// A 64 KB base and a delta that copies it over and over into `size` bytes of spaces: a
    /// few hundred bytes in a pack.
    case delta
    /// One blob of `size` spaces: zlib sends it in about a thousandth of its size.
    case blob
    /// One record of `size` bytes that do not compress, honestly sent.
    case record
    /// A record of 100 spaces stored as a delta on a base of `size` spaces that no tree names:
    /// small once read, but what reads it from the remote's packs rebuilds the base first.
    /// (A server sends the record whole; only a path remote is read from its packs.)
    case hiddenBase

    public var description: String { rawValue }

    /// Commits the bomb on top of the `main` of `remote` (a bare repository) with the
    /// trailers of `modelVersion`, using git's plumbing and `folder` for scratch files;
    /// returns the commit. Runs on a thread of its own: it writes large files and runs git.
    @discardableResult
    public func plant(in remote: String, size: Int, modelVersion: Int, folder: String) async throws -> String {
        try await onOwnThread { try plantBlocking(in: remote, size: size, modelVersion: modelVersion, folder: folder) }
    }

    private func plantBlocking(in remote: String, size: Int, modelVersion: Int, folder: String) throws -> String {
        func plumbing(_ arguments: [String], input: String? = nil) throws -> String {
            let result = try gitBlocking(["--git-dir", remote] + arguments, input: input)
            guard result.status == 0 else { throw BombFailure(message: "git \(arguments.first ?? ""): \(result.stderr)") }
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let file = folder + "/bomb-\(rawValue)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        var leaves: [(name: String, id: String)] = []
        switch self {
        case .delta:
            try Self.write(file, size: size, filler: Data(repeating: 32, count: 1 << 20))
            let bomb = try plumbing(["hash-object", file])
            let base = [UInt8](repeating: 32, count: 65_536)
            try Self.writeDeltaPack(
                base: base, delta: Delta.header(base: base.count, result: size) + [UInt8](repeating: 0x80, count: size / base.count),
                into: remote + "/objects/pack", scratch: folder)
            leaves = [("base.json", ObjectID.blobHash(of: base).hex), ("bomb.json", bomb)]
        case .hiddenBase:
            let record = [UInt8](repeating: 32, count: 100)
            // Copy 100 bytes from the base's start (offset 0, one length byte).
            try Self.writeDeltaPack(
                base: [UInt8](repeating: 32, count: size), delta: Delta.header(base: size, result: 100) + [0x90, 100],
                into: remote + "/objects/pack", scratch: folder)
            leaves = [("bomb.json", ObjectID.blobHash(of: record).hex)]
        case .blob:
            try Self.write(file, size: size, filler: Data(repeating: 32, count: 1 << 20))
            leaves = [("bomb.json", try plumbing(Self.packing + ["hash-object", "-w", file]))]
        case .record:
            let prefix = Data(#"{"id":"bomb","modelVersion":\#(modelVersion),"record":{"id":"bomb","title":""#.utf8)
            let suffix = Data(#""}}"#.utf8)
            var random = SplitMix(state: 24)
            let letters = Data((0..<(1 << 20)).map { _ in UInt8(97 + random.next() % 26) })
            try Self.write(file, size: size, prefix: prefix, filler: letters, suffix: suffix)
            leaves = [("bomb.json", try plumbing(Self.packing + ["hash-object", "-w", file]))]
        }
        let path = RecordPath(id: "bomb")
        var tree = try plumbing(["mktree", "--missing"], input: leaves.map { "100644 blob \($0.id)\t\($0.name)\n" }.joined())
        for name in [path.shards[1], path.shards[0], RecordPath.root] {
            tree = try plumbing(["mktree", "--missing"], input: "040000 tree \(tree)\t\(name)\n")
        }
        let parent = try plumbing(["rev-parse", "main"])
        let commit = try plumbing(["commit-tree", tree, "-p", parent, "-m", "A bomb\n\nModel-Version: \(modelVersion)\nFormat-Version: 1\n"])
        _ = try plumbing(["update-ref", "refs/heads/main", commit])
        return commit
    }

    /// Stores a large blob straight into a pack (git does so past `core.bigFileThreshold`), as
    /// a remote that has packed its objects holds it: a server sends it as it is, so a fetch of
    /// it costs the server nothing and the client all.
    private static let packing = ["-c", "core.bigFileThreshold=1m", "-c", "core.compression=1"]

    /// Writes `size` bytes: `prefix`, `filler` over and over, `suffix`.
    private static func write(_ path: String, size: Int, prefix: Data = Data(), filler: Data, suffix: Data = Data()) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: prefix)
        var left = size - prefix.count - suffix.count
        while left > 0 {
            try handle.write(contentsOf: filler.prefix(left))
            left -= min(left, filler.count)
        }
        try handle.write(contentsOf: suffix)
    }

    private static func writeDeltaPack(base: [UInt8], delta: [UInt8], into packFolder: String, scratch: String) throws {
        try writeDeltaChainPack(base: base, deltas: [delta], into: packFolder, scratch: scratch)
    }
}

/// A pack of `base` whole, then each of `deltas` against the entry before it (a chain as deep
/// as there are deltas), indexed by `git index-pack`, in `packFolder`.
public func writeDeltaChainPack(base: [UInt8], deltas: [[UInt8]], into packFolder: String, scratch: String) throws {
    let deflater = try Deflater(level: .standard)
    func compressed(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        let length = try bytes.withUnsafeBytes { try deflater.compress($0, into: &output) }
        return Array(output.prefix(length))
    }
    var pack = Array("PACK".utf8) + [0, 0, 0, 2] + withUnsafeBytes(of: UInt32(deltas.count + 1).bigEndian) { Array($0) }
    var previous = pack.count
    pack += EntryHeader(type: .blob, size: base.count).encoded + (try compressed(base))
    for delta in deltas {
        let start = pack.count
        pack += EntryHeader(type: .offsetDelta, size: delta.count).encoded + OffsetDistance.encode(start - previous) + (try compressed(delta))
        previous = start
    }
    let unfinished = scratch + "/chain.pack"
    try Data(pack).write(to: URL(fileURLWithPath: unfinished))
    let checksum = try runBlocking("/usr/bin/sha1sum", [unfinished]).stdout.prefix(40)
    var trailer: [UInt8] = []
    var digits = checksum.makeIterator()
    while let high = digits.next(), let low = digits.next() { trailer.append(UInt8(String([high, low]), radix: 16) ?? 0) }
    let path = packFolder + "/pack-chain-\(UUID().uuidString.prefix(8)).pack"
    try Data(pack + trailer).write(to: URL(fileURLWithPath: path))
    try? FileManager.default.removeItem(atPath: unfinished)
    let indexed = try gitBlocking(["index-pack", path])
    guard indexed.status == 0 else { throw BombFailure(message: "git index-pack: \(indexed.stderr)") }
}

struct BombFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
