// Package.swift: .package(path: "../ForkStore"), then depend on the "ForkStore" product.
import ForkStore

struct Settings: Resource, Mergeable {
    static let modelVersion = 1        // raise it whenever the stored shape changes
    var theme: String
    var fontSize: Int

    // Optional: merge concurrent edits yourself. `self` is the side that wins ties.
    func merged(with other: Settings, ancestor: Settings) throws -> Settings {
        Settings(
            theme: theme != ancestor.theme ? theme : other.theme,
            fontSize: fontSize != ancestor.fontSize ? fontSize : other.fontSize)
    }
}

let store = try Store<Settings>.create(at: "/tmp/settings.store")
try store.save(Settings(theme: "light", fontSize: 13))

let ui = try Fork("ui")
try store.createFork(ui)
try store.update(ui) { $0?.theme = "dark" }      // a commit on the fork
try store.update { $0?.fontSize = 15 }           // a concurrent commit on main

try store.mergeIntoMain(from: ui)                // .merged(commit): dark theme, size 15
for commit in try store.history() {
    print(commit.id.short, commit.modelVersion ?? 0, commit.subject)
}
