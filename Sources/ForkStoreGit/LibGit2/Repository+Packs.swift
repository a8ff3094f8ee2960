internal import CLibGit2
import Foundation

extension Repository {
    /// The packs in `objects/pack` that have an index, smallest first.
    package func packs() -> [PackFile] {
        PackFile.packs(in: gitDirectory + "objects/pack")
    }

    /// The order in which `ids` lie in the object database (``PackFile/storageOrder(of:in:)``):
    /// reading many objects in that order reads each pack front to back.
    package func storageOrder(of ids: [ObjectID]) -> [Int] {
        PackFile.storageOrder(of: ids, in: packs())
    }

    /// Calls `body` with every object of `packs` (this repository's ``packs()``, read earlier),
    /// or every one of `kind`, each rebuilt and hashed to its id in Swift
    /// (``PackReader/forEachObject(of:_:)``), from every core at once. Nothing of the
    /// repository's libgit2 handle is used, so it may run on any thread. Objects larger than
    /// `maximumObjectSize` are refused: the first failure stops the reading. Objects in
    /// `skipped` are not read.
    package static func forEachPackedObject(
        in packs: [PackFile], of kind: ObjectKind? = nil, skipping skipped: Set<ObjectID> = [], maximumObjectSize: Int,
        _ body: @Sendable (ObjectID, PackReader.Object) -> Void
    ) throws(GitError) {
        for pack in packs {
            try packing("reading \(pack.base).pack") { () throws(PackError) in
                let index = try PackIndex(path: pack.base + ".idx")
                try PackReader(pack: pack.base + ".pack", index: index, maximumObjectSize: maximumObjectSize)
                    .forEachObject(of: kind, skipping: skipped, body)
            }
        }
    }

    /// Rolls `packs` into one (``RollUp/rollUp(_:in:fsync:externalBase:beforeReadBack:)``): the
    /// new pack is read back whole before any of them is removed, and on failure they all stay.
    /// Returns how many objects the new pack holds.
    ///
    /// - Parameter beforeReadBack: for tests: called with the new pack's path before it is
    ///   read back.
    @discardableResult
    package func rollUp(_ packs: [PackFile], beforeReadBack: ((String) -> Void)? = nil) throws(GitError) -> Int {
        defer { try? refreshObjects() }
        return try packing("rolling packs into one") { () throws(PackError) in
            try RollUp.rollUp(
                packs, in: gitDirectory + "objects/pack", fsync: Libgit2.isFsyncEnabled,
                externalBase: { [self] id in try? readObject(id) }, beforeReadBack: beforeReadBack)
        }
    }

    /// An object whole, as the pack format reads it.
    func readObject(_ id: ObjectID) throws(GitError) -> PackReader.Object {
        var object: PackReader.Object?
        try withRawObject(id) { kind, data in object = PackReader.Object(kind: kind, bytes: Array(data)) }
        guard let object else { throw GitError(function: "git_odb_read", rawCode: -1, errorClass: 0, message: "object \(id.hex) was not read") }
        return object
    }
}
