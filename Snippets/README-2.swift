import ForkStore
import ForkStoreMerge

struct Note: Resource, PropertyMergeable {
    static let modelVersion = 1
    var title: String                 // last-writer-wins
    var body: String
    var tags: Set<String>
    var likes: Int

    static let mergeProperties = PropertyMerges<Note>()
        .text(\.body)                 // "Fork Yeah!!!" + "Fork yeah" → "Fork yeah!!!"
        .addWinsSet(\.tags)
        .counter(\.likes)
}

let store = try Store<Note>.create(at: "/tmp/note.store")
try store.save(Note(title: "Ship it", body: "Fork Yeah", tags: ["red"], likes: 0))
let phone = try Fork("phone")
try store.createFork(phone)
try store.update { $0?.title = "Ship it today"; $0?.body = "Fork Yeah!!!"; $0?.likes += 1 }
try store.update(phone) { $0?.title = "Ship it now"; $0?.body = "Fork yeah"; $0?.tags.insert("green") }

if case .merged(_, let conflicts) = try store.mergeIntoMain(from: phone) {
    conflicts.forEach { print($0) }   // e.g. "/title (last-writer-wins)"
}
print(try store.value()!)             // body "Fork yeah!!!", tags red and green, 1 like
