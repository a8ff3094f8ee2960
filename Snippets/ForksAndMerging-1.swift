import ForkStore

struct Settings: Resource {
    static let modelVersion = 1
    var theme: String
}

let store = try Store<Settings>.create(at: "/tmp/forks.store")
let importFork = try Fork("import")                // validated against git's rules
try store.createFork(importFork)                   // at main's head
try store.save(Settings(theme: "imported"), to: importFork)
try store.mergeIntoMain(from: importFork)          // main had nothing new: a fast-forward
try store.deleteFork(importFork)
