import ForkStore
import ForkStoreGit

/// An asset as a transfer sees it: the id and size a Git LFS batch request names.
package struct AssetObject: Sendable, Hashable {
    package let id: AssetID
    package let size: Int

    package init(id: AssetID, size: Int) {
        self.id = id
        self.size = size
    }

    package init(_ asset: Asset) {
        self.init(id: asset.id, size: asset.size)
    }
}

/// How far a transfer of assets has come, for progress events.
package struct AssetTransferCount: Sendable, Equatable {
    /// The object moving now.
    package var object: AssetObject
    /// Its bytes moved so far (counting those a resumed transfer found already moved).
    package var bytes: Int
}

/// Where a remote keeps asset bytes and how they move: a Git LFS server over HTTP(S)
/// (`LFSTransport`), or a path remote's `lfs/objects` folder (`PathAssetTransport`).
///
/// A transport never names a local file from what the remote says: it reads from and writes
/// to the paths the ``AssetFolder`` makes from ids. Network failures throw `TransferFailure`;
/// failures of one object throw ``AssetTransferFailure``.
package protocol AssetTransport: Sendable {
    /// Sends those of `objects` the remote lacks, reading each from `folder` (where it is
    /// whole and checked). Returns how many were sent. Resumes a send that stopped half-way
    /// where the remote allows it.
    func upload(_ objects: [AssetObject], from folder: AssetFolder, progress: (AssetTransferCount) -> Void) throws -> Int

    /// Brings `objects` into `folder`: each is written to its partial file
    /// (``AssetFolder/partialPath(of:)``), resuming from what an earlier transfer left there
    /// when the remote allows it, never past the object's size, and moved into place by
    /// ``AssetFolder/commit(_:as:size:)`` only when it hashes to its id.
    func download(_ objects: [AssetObject], into folder: AssetFolder, progress: (AssetTransferCount) -> Void) throws
}

/// Why one asset did not move.
package enum AssetTransferFailure: Error, Sendable, Equatable {
    /// The remote does not have the object (a download), or lost it.
    case missingOnRemote(AssetID)
    /// The remote sent bytes that do not hash to the id, or too many or too few.
    case corrupt(AssetID, reason: String)
    /// The remote refused the object, or answered about it in a way this client does not
    /// accept (an action that is not http(s), an answer for another object).
    case refused(AssetID, reason: String)
    /// The object is not in the local folder, so it cannot be sent.
    case missingLocally(AssetID)
}
