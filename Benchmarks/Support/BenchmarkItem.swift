import ForkStore
import ForkStoreGit
import Foundation

/// The record both benchmark tables write: about 200 bytes encoded.
public struct Item: Resource, Identifiable, Equatable {
    public static let modelVersion = 1
    public var id: String
    public var title: String
    public var body: String
    public var count: Int

    public static func make(_ index: Int, revision: Int = 0) -> Item {
        Item(
            id: "item-\(index)", title: "Item number \(index), revision \(revision)",
            body: String(repeating: "lorem ipsum ", count: 8) + "\(index)", count: revision)
    }
}

/// The same one-record write as `RecordStore.save`, with raw libgit2 calls only: the baseline
/// both tables measure against.
package func rawWrite(_ repository: Repository, _ item: Item, signature: Signature) throws {
    guard let head = try repository.resolveReference("refs/heads/main") else { throw POSIXError(.ENOENT) }
    let tree = try repository.readCommit(head).tree
    let blob = try repository.writeBlob(Array(try JSONEncoder().encode(item)))
    let newTree = try repository.updatedTree(from: tree, applying: [.upsert(path: RecordPath(id: item.id).description, blob: blob)])
    let commit = try repository.createCommit(tree: newTree, parents: [head], message: "raw write\n", signature: signature)
    try repository.updateReference("refs/heads/main", to: commit, expecting: head, logMessage: "raw")
}
