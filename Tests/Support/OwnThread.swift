import Foundation

/// Runs blocking work (a wait on a lock, a child process) on a thread of its own and awaits
/// it, so it never holds one of Swift's cooperative threads, which the other suites need.
public func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
    }
}

/// A `git update-ref --stdin` transaction held open between `prepare` and `commit`, as git
/// itself holds a ref: the lock file exists, and git has closed it (git keeps no lock file
/// open), so nothing but the file says that a live process holds it.
public final class HeldGitTransaction: @unchecked Sendable {
    // Used from one thread at a time: the test's.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var printed = ""

    /// Starts the transaction in the bare repository at `gitDirectory` and prepares `update`
    /// (`<ref> <new> <old>`), which locks the ref.
    public init(gitDirectory: String, update: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "--git-dir", gitDirectory, "update-ref", "--stdin"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try send("start\nupdate \(update)\nprepare\n", until: "prepare: ok")
    }

    /// Commits the transaction and waits for git to end; returns what git printed.
    public func commit() throws -> String {
        try send("commit\n", until: "commit: ok")
        try input.fileHandleForWriting.close()
        // Polled: `waitUntilExit` can hang on a thread other than the one that started it.
        while process.isRunning { usleep(10_000) }
        return printed
    }

    private func send(_ commands: String, until answer: String) throws {
        input.fileHandleForWriting.write(Data(commands.utf8))
        while !printed.contains(answer) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw POSIXError(.EPIPE, userInfo: [NSLocalizedDescriptionKey: "git ended: \(printed)"]) }
            printed += String(decoding: chunk, as: UTF8.self)
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
