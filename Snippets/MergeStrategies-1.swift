import ForkStore
import ForkStoreMerge

struct Note: Resource, PropertyMergeable {
    static let modelVersion = 1
    var title: String          // last-writer-wins
    var body: String           // text merge
    var tags: Set<String>      // add-wins set
    var likes: Int             // counter
    var done: Bool             // last-writer-wins

    static let mergeProperties = PropertyMerges<Note>()
        .text(\.body)
        .addWinsSet(\.tags)
        .counter(\.likes)
}
