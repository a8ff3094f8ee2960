import ForkStore

struct Card: Resource {
    static let modelVersion = 1
    var title: String
}

let store = try Store<Card>.open(at: "/tmp/cards.store")
let phone = try Fork("phone")
try store.mergeIntoMain(from: phone) { conflict in
    conflict.path.hasSuffix("/title") ? .theirs : .keep
}
// Or for every merge of this store object:
let alwaysTheirs = try Store<Card>.open(at: "/tmp/cards.store", options: StoreOptions(conflictResolver: { _ in .theirs }))
