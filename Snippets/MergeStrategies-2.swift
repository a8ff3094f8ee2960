import ForkStore
import ForkStoreMerge

struct Card: Resource, PropertyMergeable {
    static let modelVersion = 1
    var title: String
    var body: String
    static let mergeProperties = PropertyMerges<Card>().text(\.body)
}

let store = try Store<Card>.create(at: "/tmp/cards.store")
try store.save(Card(title: "Draft", body: "one two three"))
let phone = try Fork("phone")
try store.createFork(phone)
try store.save(Card(title: "Final", body: "one TWO three"))
try store.save(Card(title: "Sent", body: "one two THREE"), to: phone)

if case .merged(let commit, let conflicts) = try store.mergeIntoMain(from: phone) {
    for conflict in conflicts {    // /title: both sides changed it; the body merged cleanly
        print(conflict.path, conflict.strategy, conflict.ours as Any, conflict.theirs as Any)
    }
    print(commit.trailer("Merge-Conflicts") ?? "")
}
