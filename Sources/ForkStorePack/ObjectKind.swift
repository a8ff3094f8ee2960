/// The kind of a git object, with git's numbers for it (the type field of a pack entry).
package enum ObjectKind: UInt8, Sendable, CaseIterable {
    case commit = 1
    case tree = 2
    case blob = 3
    case tag = 4

    /// The name git writes in an object's header (`blob 12\0`).
    package var name: String {
        switch self {
        case .commit: "commit"
        case .tree: "tree"
        case .blob: "blob"
        case .tag: "tag"
        }
    }
}
