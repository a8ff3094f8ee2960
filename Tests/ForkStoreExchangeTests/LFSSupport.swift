import Crypto
import ForkStore
@testable import ForkStoreExchange
import ForkStoreGit
import ForkStoreTestSupport
import Foundation
import Testing

/// A temporary folder with asset folders in it, for LFS transport tests.
struct LFSLab {
    let folder = TemporaryFolder("lfs")

    /// An asset folder (`<name>/lfs`) in the lab.
    func assets(_ name: String) -> AssetFolder {
        AssetFolder(root: folder.child(name) + "/lfs")
    }

    /// Puts `bytes` into `assets` and returns the object.
    @discardableResult
    func add(_ bytes: [UInt8], to assets: AssetFolder) throws -> AssetObject {
        var offset = 0
        let (id, size) = try assets.add(maximumSize: .max) { buffer in
            let count = min(buffer.count, bytes.count - offset)
            bytes.withUnsafeBytes { whole in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: whole[offset..<(offset + count)]))
            }
            offset += count
            return count
        }
        return AssetObject(id: id, size: size)
    }

    /// Every file under the lab's folder, relative to it (to show nothing was written
    /// elsewhere than expected).
    func files() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.child(next), isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(next)
            }
        }
        return found.sorted()
    }

    /// The files left in an asset folder's `tmp/` (partial downloads).
    func leftovers(in assets: AssetFolder) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: assets.root + "/tmp")) ?? []
    }
}

/// Bytes that differ from test to test: `count` of them from a seed.
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    var bytes = [UInt8](repeating: 0, count: count)
    for index in bytes.indices {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return bytes
}

/// The SHA-256 of bytes as an id.
func assetID(of bytes: [UInt8]) -> AssetID {
    AssetID(digest: SHA256.hash(data: bytes))
}

/// Runs an upload on a thread of its own; returns how many were sent and the progress seen.
func upload(_ transport: LFSTransport, _ objects: [AssetObject], from folder: AssetFolder) async throws -> (sent: Int, progress: [AssetID: Int]) {
    try await onOwnThread {
        var seen: [AssetID: Int] = [:]
        let sent = try transport.upload(objects, from: folder) { seen[$0.object.id] = max(seen[$0.object.id] ?? 0, $0.bytes) }
        return (sent, seen)
    }
}

/// Runs a download on a thread of its own; returns the progress seen.
@discardableResult
func download(_ transport: LFSTransport, _ objects: [AssetObject], into folder: AssetFolder) async throws -> [AssetID: Int] {
    try await onOwnThread {
        var seen: [AssetID: Int] = [:]
        try transport.download(objects, into: folder) { seen[$0.object.id] = max(seen[$0.object.id] ?? 0, $0.bytes) }
        return seen
    }
}

/// What a transfer threw, for `#expect`s on it.
func failure(of body: @escaping @Sendable () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}
