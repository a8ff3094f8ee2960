import ArgumentParser
import ForkStore
import Foundation

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a short scripted story: a store, a fork, edits on both sides, a merge.",
        discussion: """
            Example: forknotes demo
            Works in a temporary folder (removed afterwards unless --keep is given).
            """)

    @Flag(help: "Keep the temporary folder and print its path.") var keep = false

    func run() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("forknotes-demo-\(UUID().uuidString.prefix(8))")
        defer {
            if !keep { try? FileManager.default.removeItem(at: folder) }
        }
        let path = folder.appendingPathComponent("notes.store").path

        heading("1. Create a store and a note on main")
        let store = try Store<Notebook>.create(at: path)
        let id = "demo-note"
        try store.save(
            Notebook(notes: [id: Note(id: id, title: "Ship it", body: "Fork Yeah", tags: ["red", "blue"])]),
            message: "Add note \(id)")
        try show(store, .main)

        heading("2. Fork 'phone' and edit both sides")
        let phone = try Fork("phone")
        try store.createFork(phone)
        try store.update(message: "Edit note \(id) on main") { notebook in
            notebook?.notes[id]?.title = "Ship it today"
            notebook?.notes[id]?.body = "Fork Yeah!!!"
            notebook?.notes[id]?.tags.remove("red")
        }
        try store.update(phone, message: "Edit note \(id) on the phone") { notebook in
            notebook?.notes[id]?.body = "Fork yeah"
            notebook?.notes[id]?.tags.insert("green")
            notebook?.notes[id]?.done = true
        }
        print("main:")
        try show(store, .main)
        print("phone:")
        try show(store, phone)

        heading("3. Merge 'phone' into main")
        switch try store.mergeIntoMain(from: phone) {
        case .merged(let commit, let conflicts):
            print("merge commit \(commit.id.short); strategies: \(commit.trailer("Merge-Strategies") ?? "none"); conflicts: \(conflicts.count)")
        case .fastForwarded(let commit):
            print("fast-forwarded to \(commit.short)")
        case .upToDate:
            print("nothing to merge")
        }
        try show(store, .main)
        print("Merging again changes nothing: \(try store.mergeIntoMain(from: phone) == .upToDate ? "up to date" : "merged again?")")

        heading("4. History of main (git log works too)")
        for commit in try store.history(of: .main) {
            print(LogCommand.line(for: commit))
        }
        if keep {
            print("\nThe store is at \(path)\nTry: git -C \(path) log --format=%B main")
        }
    }

    private func heading(_ text: String) {
        print("\n== \(text)")
    }

    private func show(_ store: Store<Notebook>, _ fork: Fork) throws {
        for note in (try store.value(in: fork)?.notes.values).map(Array.init) ?? [] {
            print("  " + note.card.replacingOccurrences(of: "\n", with: "\n  "))
        }
    }
}
