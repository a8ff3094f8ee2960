import ArgumentParser
import ForkStore
import ForkStoreExchange

/// The exit codes `forknotes` documents in its help.
enum ExitCodes {
    static let offline = ExitCode(3)
    static let halted = ExitCode(4)
    static let busy = ExitCode(5)
    static let summary = """
        Exit codes: 0 success; 1 error (the message says what failed and what to do); \
        3 offline (the remote is unreachable; local changes are kept); 4 halted (the remote holds \
        data of a newer model version; update forknotes); 5 busy (another sync of the store, or \
        a git command, kept it for longer than forknotes waits; nothing was changed; try again); \
        64 bad usage.
        """

    /// Whether `error` says the store was busy: another program held it past the wait.
    static func isBusy(_ error: any Error) -> Bool {
        switch error {
        case StoreError.locked, ExchangeError.busy: true
        default: (error as? ExchangeError)?.storeError?.code == .locked
        }
    }
}
