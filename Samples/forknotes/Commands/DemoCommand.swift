import ArgumentParser
import ForkStore
import ForkStoreExchange
import Foundation

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a short scripted story: two replicas edit the same note, sync, merge; then an old build halts.",
        discussion: """
            Example: forknotes demo
            Works in a temporary folder with a local bare git repository as the remote (no
            server needed); the folder is removed afterwards unless --keep is given.
            """)

    @Flag(help: "Keep the temporary folder and print its path.") var keep = false

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("forknotes-demo-\(UUID().uuidString.prefix(8))")
        defer {
            if !keep { try? FileManager.default.removeItem(at: folder) }
        }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let id = "demo-note"

        heading("1. A laptop and a phone share a remote (a bare git repository)")
        // Every store is a bare git repository, so a fresh store serves as the remote.
        _ = try await RecordStore<Note>.create(at: path("remote.git"))
        let remote = try Remote(path("remote.git"))
        let laptop = try await RecordStore<Note>.create(at: path("laptop.notes"))
        let phone = try await RecordStore<Note>.create(at: path("phone.notes"))
        let laptopSync = Exchange(records: laptop, remote: remote)
        let phoneSync = Exchange(records: phone, remote: remote)
        try await laptop.save(Note(id: id, title: "Ship it", body: "Fork Yeah", tags: ["red", "blue"]), message: "Add note \(id)")
        try await laptopSync.sync()
        try await phoneSync.sync()
        print("laptop wrote a note and synced; the phone synced and has it:")
        try show(phone)

        heading("2. Both edit the same note while offline")
        try await laptop.update(id, message: "Edit on the laptop") { note in
            note.title = "Ship it today"
            note.body = "Fork Yeah!!!"
            note.tags.remove("red")
            note.touch()
        }
        try await phone.update(id, message: "Edit on the phone") { note in
            note.body = "Fork yeah"
            note.tags.insert("green")
            note.done = true
            note.touch()
        }
        print("laptop:")
        try show(laptop)
        print("phone:")
        try show(phone)

        heading("3. Sync both ways: text, tags and done merge property by property")
        let first = try await laptopSync.sync()
        let second = try await phoneSync.sync()
        try await laptopSync.sync()
        print("laptop pushed \(first.pushedCommits) commit(s); phone fetched \(second.fetchedCommits), merged, pushed \(second.pushedCommits); conflicts: \(second.conflicts.count)")
        print("laptop:")
        try show(laptop)
        print("phone:")
        try show(phone)

        heading("4. The laptop attaches a picture; the phone fetches it when it opens it")
        let picture = folder.appendingPathComponent("sunset.png")
        try Self.picture.write(to: picture)
        let asset = try await laptop.addAsset(contentsOf: picture)
        try await laptop.update(id, message: "Attach sunset.png to note \(id)") { note in
            note.attachments["sunset.png"] = asset
            note.touch()
        }
        try await laptopSync.sync()
        try await phoneSync.sync()
        guard let reference = try await phone.record(id)?.attachments["sunset.png"] else {
            throw ValidationError("The phone's note lacks the attachment after syncing.")
        }
        print("laptop attached sunset.png (\(asset.size) bytes, \(asset.id.oid.prefix(19))…) and synced: its bytes went to the remote first")
        print("phone synced the note; the picture's bytes are local: \(phone.isLocal(reference))")
        let opened = try await phoneSync.fetchAsset(reference)
        let fetched = try Data(contentsOf: opened)
        print("phone opened it: \(fetched.count) bytes, checked against their SHA-256, same as the laptop's: \(fetched == (try Data(contentsOf: picture)))")

        heading("5. The laptop's history (git log reads it too)")
        for commit in try await laptop.history(of: .main) {
            print(LogCommand.line(for: commit))
        }

        heading("6. An old build (model version 1) meets this version-\(Note.modelVersion) data")
        try await haltAnOldBuild(store: path("old-phone.notes"), remote: path("remote.git"))

        if keep {
            print("\nThe stores are in \(folder.path)\nTry: git --git-dir \(path("laptop.notes")) log --format=%B main")
        }
    }

    /// Runs this binary as a version-1 build against the remote, so the halt is the real one a
    /// user of an old app version would see.
    private func haltAnOldBuild(store: String, remote: String) async throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let environment = ProcessInfo.processInfo.environment.merging(["FORKNOTES_MODEL_VERSION": "1"]) { _, new in new }
        for arguments in [["init", "--store", store, "--remote", remote], ["sync", "--store", store]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            print("$ FORKNOTES_MODEL_VERSION=1 forknotes \(arguments[0]) …   (exit \(process.terminationStatus))")
            print(text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        print("The old build halted instead of reading data it does not understand; its local notes are untouched.")
    }

    /// A small picture: 16 × 16 pixels of a sunset, as a PNG.
    static var picture: Data {
        Data(base64Encoded: pictureBase64) ?? Data()
    }

    private static let pictureBase64 = """
        iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAA+ElEQVR42uXLK1bFMBQF0DeSq/P/oO8gKisrKysjIyMjK5FIJBKJRCKRSGZwyDrTYK1t9wObIYvNkccWKGJLlLEVqtieHtgNWeyOPPZAEXuijL1Qxb7CYcjicORxBIo4EmUchSqOFU5DFqcjjzNQxJko4yxUca5wGbK4HHlcgSKuRBlXoYprhWbIojnyaIEiWqKMVqiirdANWXRHHj1QRE+U0QtV9BWGIYvhyGMEihiJMkahirHCNGQxHXnMQBEzUcYsVDFXuA1Z3I487kARd6KMu1DF/fQQbaJddIhO0Vv0WfRF9FX0TfRd9EP0U/RL9Fv0R/T3X4Y/2H9pHim1tHYAAAAASUVORK5CYII=
        """

    private func heading(_ text: String) {
        print("\n== \(text)")
    }

    private func show(_ store: RecordStore<Note>) throws {
        for note in try store.records().sorted(by: { $0.id < $1.id }) {
            print("  " + note.card.replacingOccurrences(of: "\n", with: "\n  ") + note.attachmentsLine { store.isLocal($0) })
        }
    }
}
