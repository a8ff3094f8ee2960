import ArgumentParser
import ForkStore
import Foundation

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Write the schema snapshot of the running model version, and check it against the previous one.",
        discussion: """
            Example: forknotes schema --output Schema/forknotes
            Writes <output>/Note/v<N>.json for the running model version (set
            FORKNOTES_MODEL_VERSION=1, 2 or 3 for an older version). When v<N-1>.json is there, prints the risky
            changes between the two that no custom migration stage handles, and exits 1 if any.
            """)

    @Option(help: ArgumentHelp("The folder for the snapshots.", valueName: "folder")) var output: String

    func run() throws {
        let snapshot = switch Note.modelVersion {
        case 1: SchemaSnapshot(of: NoteVersion1(id: "", title: "", body: "", tags: [], done: false))
        case 2: SchemaSnapshot(of: NoteVersion2(id: "", title: "", body: "", tags: []))
        case 3: SchemaSnapshot(of: NoteVersion3(id: "", title: "", body: "", tags: []))
        default: SchemaSnapshot(of: Note(id: "", title: ""))
        }
        let renamed = SchemaSnapshot(type: "Note", modelVersion: snapshot.modelVersion, fields: snapshot.fields)
        let folder = (output as NSString).appendingPathComponent("Note")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = (folder as NSString).appendingPathComponent("v\(renamed.modelVersion).json")
        try Data(try renamed.encoded()).write(to: URL(fileURLWithPath: file))
        print("Wrote \(file)")
        let previous = (folder as NSString).appendingPathComponent("v\(renamed.modelVersion - 1).json")
        guard let data = FileManager.default.contents(atPath: previous) else { return }
        let risky = SchemaSnapshot.riskyChanges(
            from: try SchemaSnapshot.decoded(from: Array(data)), to: renamed, plan: Note.migrationPlan)
        for change in risky { FileHandle.standardError.write(Data("risky: \(change)\n".utf8)) }
        if !risky.isEmpty { throw ExitCode.failure }
        print("No risky changes from version \(renamed.modelVersion - 1).")
    }
}
