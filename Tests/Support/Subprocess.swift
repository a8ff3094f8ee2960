import Foundation

/// What a finished process printed and how it ended.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a program to completion on a thread of its own, capturing its output: the test's
/// cooperative thread is free while the program runs (issue 25).
@discardableResult
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
) async throws -> ProcessResult {
    try await onOwnThread { try runBlocking(executable, arguments, environment: environment, input: input) }
}

/// Runs a program to completion on the calling thread, capturing its output. Only for threads
/// the tests own (inside ``onOwnThread(_:)``, the stress writer): on a cooperative thread it
/// would hold one of the two that every other test needs.
@available(*, noasync, message: "blocks a cooperative thread: await run(…) instead")
@discardableResult
public func runBlocking(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { _, new in new }
    process.environment = merged
    // stderr goes to a file so that a child filling both pipes can never block.
    let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: errPath) }
    let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    let out = Pipe()
    process.standardOutput = out
    process.standardError = errHandle
    // The input from a file too: written to a pipe before the child starts, more than a pipe
    // holds (64 KB) would block for ever.
    let inPath = errPath + ".in"
    defer { try? FileManager.default.removeItem(atPath: inPath) }
    if let input {
        guard FileManager.default.createFile(atPath: inPath, contents: Data(input.utf8)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: inPath])
        }
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    let outData = try out.fileHandleForReading.readToEnd() ?? Data()
    process.waitUntilExit()
    try errHandle.close()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
}

/// Runs the git command line, the independent reader of what ForkStore writes, on a thread of
/// its own.
@discardableResult
public func git(_ arguments: String..., environment: [String: String] = [:], input: String? = nil) async throws -> ProcessResult {
    try await git(arguments, environment: environment, input: input)
}

/// Runs the git command line with an argument list built at run time, on a thread of its own.
@discardableResult
public func git(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws -> ProcessResult {
    try await onOwnThread { try gitBlocking(arguments, environment: environment, input: input) }
}

/// Runs the git command line on the calling thread; only for threads the tests own.
@available(*, noasync, message: "blocks a cooperative thread: await git(…) instead")
@discardableResult
public func gitBlocking(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> ProcessResult {
    let identity = [
        "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@localhost",
        "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@localhost",
    ]
    return try runBlocking("/usr/bin/env", ["git"] + arguments, environment: identity.merging(environment) { _, new in new }, input: input)
}

/// The folder holding the built products (the test bundle and executables beside it).
public func productsFolder() -> String {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
        Bundle.main.bundleURL.deletingLastPathComponent().path,
        Bundle.main.bundleURL.path,
    ]
    for folder in candidates where FileManager.default.fileExists(atPath: folder + "/forkstore-stress-writer") {
        return folder
    }
    return candidates[0]
}

/// Runs the stress writer with `arguments`, kills it with SIGKILL once it has acknowledged
/// `acknowledgements` writes and `delay` seconds more (or when it ends), and returns what it
/// acknowledged. The waits happen on a thread of its own.
public func runStressWriter(_ arguments: [String], killAfter acknowledgements: Int?, delay: TimeInterval = 0) async throws -> [String] {
    try await onOwnThread { try runStressWriterBlocking(arguments, killAfter: acknowledgements, delay: delay) }
}

private func runStressWriterBlocking(_ arguments: [String], killAfter acknowledgements: Int?, delay: TimeInterval) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: productsFolder() + "/forkstore-stress-writer")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    var buffer = Data()
    while acknowledgements.map({ String(decoding: buffer, as: UTF8.self).split(separator: "\n").count < $0 }) ?? true {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
    }
    if acknowledgements != nil {
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
    }
    buffer.append(output.fileHandleForReading.readDataToEndOfFile())
    process.waitUntilExit()
    // Only complete lines were acknowledged.
    let text = String(decoding: buffer, as: UTF8.self)
    let complete = text.hasSuffix("\n") ? text : String(text[..<(text.lastIndex(of: "\n") ?? text.startIndex)])
    return complete.split(separator: "\n").filter { $0.hasPrefix("done ") }.map { String($0.dropFirst(5)) }
}
