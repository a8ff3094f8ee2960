import ArgumentParser
import ForkStore
import ForkStoreExchange
import ForkStoreQueries
import Foundation

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync the notes with the remote: fetch, merge, push.",
        discussion: """
            Example: forknotes sync --store notes --remote git://127.0.0.1/notes.git
            The remote is the one given to 'init --remote' unless --remote overrides it.

            Credentials come from the environment: FORKNOTES_USERNAME with FORKNOTES_PASSWORD \
            (a password or token), or FORKNOTES_SSH_KEY (a private key file). FORKNOTES_HOST_KEY \
            pins an ssh host key (SHA256:...); FORKNOTES_INSECURE=1 trusts any server (tests only).

            FORKNOTES_TRUSTED_OWNERS names a file of ssh public key lines (one a line): sync then \
            takes only a store shared by one of those owners, so a new replica cannot be handed \
            a stranger's store. Unset, a new replica trusts the first shared store it syncs with.

            Syncs of one store run one at a time: a sync waits for one already running, for up \
            to FORKNOTES_BUSY_TIMEOUT seconds (default 30), then exits busy (5).

            \(ExitCodes.summary)
            """)

    @OptionGroup var location: StoreLocation
    @Option(help: ArgumentHelp("The remote's URL or path (overrides the recorded one).", valueName: "url"))
    var remote: String?

    func run() async throws {
        let store = try location.open()
        // An index in use is kept fresh by the sync: the notes it lands are indexed before it
        // returns, so the next `list` finds them ready. (A cache: a failure here leaves the
        // next query to build it.)
        try? await store.refreshIndex()
        var settings = SyncSettings.load(for: location.path)
        let exchange = try SyncSettings.exchange(for: store, at: location.path, remote: remote)
        let progress = ProgressLine()
        let events = exchange.events()
        let watcher = Task {
            for await event in events {
                switch event {
                case .progress(let transfer): progress.show(transfer)
                case .checkProgress(let check): progress.show(check)
                case .indexProgress(let indexing): progress.show(indexing)
                case .assetProgress(let transfer): progress.show(transfer)
                default: break
                }
            }
        }
        defer { watcher.cancel() }
        do {
            let report = try await exchange.sync()
            progress.finish()
            settings.lastState = "idle"
            settings.lastError = nil
            settings.lastSuccess = Date()
            settings.quarantine = Self.describe(exchange.status.quarantine)
            try? settings.save(for: location.path)
            print("Synced with \(exchange.remote): fetched \(report.fetchedCommits), pushed \(report.pushedCommits) commit(s).")
            for conflict in report.conflicts {
                print("  conflict at \(conflict.description.escapedForTerminal)")
            }
        } catch {
            progress.finish()
            settings.lastError = error.description
            settings.lastState = Self.name(of: exchange.status.state)
            settings.quarantine = Self.describe(exchange.status.quarantine)
            try? settings.save(for: location.path)
            Terminal.printError("Error: \(error.description)")
            switch error {
            case .offline: throw ExitCodes.offline
            case .halted: throw ExitCodes.halted
            case _ where ExitCodes.isBusy(error): throw ExitCodes.busy
            default: throw ExitCode.failure
            }
        }
    }

    static func describe(_ quarantine: QuarantinedFetch?) -> String? {
        quarantine.map { "\($0.head.hex) in \($0.repository) (\($0.reference))" }
    }

    static func name(of state: ExchangeState) -> String {
        switch state {
        case .idle: "idle"
        case .syncing: "syncing"
        case .offline: "offline"
        case .halted(let found, let known): "halted (remote model version \(found), this build knows \(known))"
        case .failed: "failed"
        }
    }
}
