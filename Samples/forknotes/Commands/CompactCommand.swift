import ArgumentParser
import ForkStore

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Replace main's old history by a checkpoint, keeping the last commits or days.",
        discussion: """
            Example: forknotes compact --store notes --keep-commits 1000
            The notes do not change: the checkpoint holds the data of the commit at the horizon,
            and every later commit is replayed onto it. The old history stays under an archive
            ref (refs/forkstore/archive/<checkpoint>) unless --drop-archive is given; then the
            next pack frees it. In a shared store only an owner compacts.
            """)

    @OptionGroup var location: StoreLocation
    @Option(help: "Keep this many commits of main's history.") var keepCommits: Int?
    @Option(help: "Keep the commits of this many days.") var keepDays: Int?
    @Flag(help: "Drop the archive of the old history, and pack to free it.") var dropArchive = false

    func validate() throws {
        guard (keepCommits == nil) != (keepDays == nil) else {
            throw ValidationError("Give one of --keep-commits N and --keep-days N.")
        }
        if let keepCommits, keepCommits < 1 { throw ValidationError("--keep-commits must be at least 1.") }
        if let keepDays, keepDays < 0 { throw ValidationError("--keep-days must not be negative.") }
    }

    func run() throws {
        let store = try location.open()
        let archive: ArchivePolicy = dropArchive ? .drop : .keep
        let policy: HistoryPolicy = keepCommits.map { .keepCommits($0, archive: archive) } ?? .keepDays(keepDays ?? 0, archive: archive)
        guard let compaction = try store.compactHistory(keeping: policy) else {
            print("nothing to compact: main's history is within \(policy)")
            if dropArchive { try store.pack() }
            return
        }
        print("checkpoint \(compaction.checkpoint.short) of \(compaction.horizon.short); \(compaction.replayed) commit(s) replayed onto it")
        for fork in compaction.movedForks { print("moved fork '\(fork.name.escapedForTerminal)' onto the new history") }
        if dropArchive {
            try store.pack()
            print("old history dropped and packed away (files written in the last 10 minutes go at a later pack)")
        } else {
            print("old history kept under \(compaction.archiveReference)")
        }
    }
}
