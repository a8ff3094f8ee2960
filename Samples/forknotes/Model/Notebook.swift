import ForkStore
import ForkStoreMerge

/// The resource the sample stores: every note, keyed by id.
///
/// Merging goes note by note (``DictionaryMerge``): a note added on either side is kept, a
/// note deleted on one side and edited on the other is kept with the edit, and a note changed
/// on both sides merges property by property (see ``Note``).
struct Notebook: Resource, PropertyMergeable, Equatable {
    static let modelVersion = 1

    var notes: [String: Note] = [:]

    static let mergeProperties = PropertyMerges<Notebook>()
        .dictionary(\.notes)
}
