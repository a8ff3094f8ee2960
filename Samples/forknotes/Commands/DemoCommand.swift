import ArgumentParser
import ForkStore
import ForkStoreExchange
import Foundation

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a short scripted story: forks and merges, then two replicas syncing.",
        discussion: """
            Example: forknotes demo
            Works in a temporary folder with a local bare repository as the remote (no server
            needed); the folder is removed afterwards unless --keep is given.
            """)

    @Flag(help: "Keep the temporary folder and print its path.") var keep = false

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("forknotes-demo-\(UUID().uuidString.prefix(8))")
        defer {
            if !keep { try? FileManager.default.removeItem(at: folder) }
        }
        let laptopPath = folder.appendingPathComponent("laptop.notes").path
        let id = "demo-note"

        heading("1. A store with one note")
        let laptop = try RecordStore<Note>.create(at: laptopPath)
        try laptop.save(Note(id: id, title: "Ship it", body: "Fork Yeah", tags: ["red", "blue"]), message: "Add note \(id)")
        try show(laptop, .main)

        heading("2. Fork 'phone' and edit both sides")
        let phone = try Fork("phone")
        try laptop.createFork(phone)
        try laptop.update(id, message: "Edit note \(id) on main") { note in
            note.title = "Ship it today"
            note.body = "Fork Yeah!!!"
            note.tags.remove("red")
        }
        try laptop.update(id, in: phone, message: "Edit note \(id) on the phone") { note in
            note.body = "Fork yeah"
            note.tags.insert("green")
            note.done = true
        }
        print("main:")
        try show(laptop, .main)
        print("phone:")
        try show(laptop, phone)

        heading("3. Merge 'phone' into main: text, tags and done merge property by property")
        if case .merged(let commit, let conflicts) = try laptop.mergeIntoMain(from: phone) {
            print("merge commit \(commit.id.short); strategies: \(commit.trailer("Merge-Strategies") ?? "none"); conflicts: \(conflicts.count)")
        }
        try show(laptop, .main)
        print("Merging again changes nothing: \(try laptop.mergeIntoMain(from: phone) == .upToDate ? "up to date" : "merged again?")")

        heading("4. Two replicas sync through a bare git repository")
        // Every store is a bare git repository, so a fresh store serves as the remote.
        let remote = folder.appendingPathComponent("remote.git").path
        _ = try RecordStore<Note>.create(at: remote)
        let desktop = try RecordStore<Note>.create(at: folder.appendingPathComponent("desktop.notes").path)
        let laptopSync = Exchange(records: laptop, remote: try Remote(remote))
        let desktopSync = Exchange(records: desktop, remote: try Remote(remote))
        try await laptopSync.sync()
        try await desktopSync.sync()
        try desktop.update(id, message: "Rename on the desktop") { $0.title = "Ship it this week" }
        try laptop.save(Note(id: "groceries", title: "Groceries", body: "milk", tags: ["home"]), message: "Add groceries")
        let fromDesktop = try await desktopSync.sync()
        let fromLaptop = try await laptopSync.sync()
        try await desktopSync.sync()
        print("desktop pushed \(fromDesktop.pushedCommits) commit(s); laptop fetched \(fromLaptop.fetchedCommits), pushed \(fromLaptop.pushedCommits)")
        print("laptop:")
        try show(laptop, .main)
        print("desktop:")
        try show(desktop, .main)

        heading("5. History of the laptop's main (git log works too)")
        for commit in try laptop.history(of: .main) {
            print(LogCommand.line(for: commit))
        }
        if keep {
            print("\nThe stores are in \(folder.path)\nTry: git -C \(laptopPath) log --format=%B main")
        }
    }

    private func heading(_ text: String) {
        print("\n== \(text)")
    }

    private func show(_ store: RecordStore<Note>, _ fork: Fork) throws {
        for note in try store.records(in: fork).sorted(by: { $0.id < $1.id }) {
            print("  " + note.card.replacingOccurrences(of: "\n", with: "\n  "))
        }
    }
}
