import ForkStore

/// The README's quick-start `Note`, with an id so a record collection holds it too: a `Set` of
/// tags, and deliberately not `Equatable`, so the store can tell an unchanged note only by its
/// bytes. Shared by the tests and the stress writer, which saves it from other processes.
public struct TaggedNote: Resource, Identifiable {
    public static let modelVersion = 1

    public var id: String
    public var title: String
    public var body: String
    public var tags: Set<String>
    public var likes: Int

    /// The note the stress writer saves, its tags inserted in `order`.
    public static func sample(tagsIn order: [String] = sampleTags) -> TaggedNote {
        var tags = Set<String>()
        for tag in order { tags.insert(tag) }
        return TaggedNote(id: "ship-it", title: "Ship it", body: "Fork Yeah", tags: tags, likes: 1)
    }

    /// Enough tags that two hash orders of them are almost never the same.
    public static let sampleTags = (0..<40).map { "tag-\($0)" }
}
