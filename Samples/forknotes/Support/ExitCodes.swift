import ArgumentParser

/// The exit codes `forknotes` documents in its help.
enum ExitCodes {
    static let offline = ExitCode(3)
    static let halted = ExitCode(4)
    static let summary = """
        Exit codes: 0 success; 1 error (the message says what failed and what to do); \
        3 offline (the remote is unreachable; local changes are kept); 4 halted (the remote holds \
        data of a newer model version; update forknotes); 64 bad usage.
        """
}
