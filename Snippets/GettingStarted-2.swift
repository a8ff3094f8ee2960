import ForkStore

struct Settings: Resource {
    static let modelVersion = 1
    var theme: String
}

let store = try Store<Settings>.open(at: "/tmp/settings.store")
let older = try store.save(Settings(theme: "light"))
let newer = try store.save(Settings(theme: "dark"))

for commit in try store.history(limit: 10) {
    print(commit.id.short, commit.date, commit.modelVersion ?? 0, commit.subject)
}
print(try store.value(at: older.id) as Any)                       // the value then
for change in try store.differences(from: older.id, to: newer.id) {
    print(change)                                                  // "~ /theme"
}
try store.restore(older.id)                                        // the old value as a new commit
