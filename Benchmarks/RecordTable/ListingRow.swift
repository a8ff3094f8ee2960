import Foundation

/// One row of the listing table at `size` notes: `forknotes list --json` beside
/// `git cat-file --batch` reading the same blobs, the note store's whole listing against
/// git's own reading of the objects it lists. Each round runs both, one after the other, the
/// order swapped every round, so a noisy machine slows both alike; the medians are printed.
func listingRow(_ size: Int, root: String, rounds: Int, forknotes: String) throws -> [String] {
    guard FileManager.default.isExecutableFile(atPath: forknotes) else { return [String(size)] + Array(repeating: "-", count: 8) }
    let notes = "\(root)/listing\(size)", lines = "\(root)/listing\(size).jsonl", blobs = "\(root)/listing\(size).blobs"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let body = String(repeating: "body text ", count: 10)
    try (0..<size).map { #"{"id":"n\#($0)","title":"Note \#($0)","body":"\#(body)","tags":["t\#($0 % 10)"],"done":false}"# }
        .joined(separator: "\n").write(toFile: lines, atomically: true, encoding: .utf8)
    try run(forknotes, ["init", "--store", notes])
    try run(forknotes, ["import", "--store", notes, "--batch-size", "10000", lines])
    try run(forknotes, ["list", "--store", notes, "--limit", "1"])  // builds the index
    // The blobs the notes' tree holds, as cat-file's input.
    let tree = try run("/usr/bin/git", ["--git-dir", notes, "ls-tree", "-r", "main", "records"])
    let ids = tree.split(separator: "\n").compactMap { line in line.split(separator: "\t").first?.split(separator: " ").last }
    try (ids.joined(separator: "\n") + "\n").write(toFile: blobs, atomically: true, encoding: .utf8)

    // Checked once, untimed: list prints every note, and cat-file finds every blob.
    let listed = try JSONSerialization.jsonObject(with: Data(try run(forknotes, ["list", "--store", notes, "--json"]).utf8)) as? [Any]
    let read = try run("/usr/bin/git", ["--git-dir", notes, "cat-file", "--batch-check"], input: blobs)
    let same = listed?.count == size && ids.count == size && !read.contains("missing")

    var list: [(seconds: Double, peakMB: Double, cpuSeconds: Double)] = []
    var git: [(seconds: Double, peakMB: Double, cpuSeconds: Double)] = []
    for round in 0..<rounds {
        let listing = { list.append(try measure(forknotes, ["list", "--store", notes, "--json"])) }
        let reading = { git.append(try measure("/usr/bin/git", ["--git-dir", notes, "cat-file", "--batch"], input: blobs)) }
        if round % 2 == 0 {
            try listing()
            try reading()
        } else {
            try reading()
            try listing()
        }
    }
    func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let (listSeconds, gitSeconds) = (middle(list.map(\.seconds)), middle(git.map(\.seconds)))
    return [
        String(size), format(listSeconds), format(gitSeconds), format(listSeconds / gitSeconds) + "x",
        format(middle(list.map(\.cpuSeconds))), format(middle(git.map(\.cpuSeconds))),
        format(middle(list.map(\.peakMB))), format(middle(git.map(\.peakMB))), same ? "yes" : "NO",
    ]
}

/// Runs a program to its end, its standard input from `input` when given; returns what it
/// printed. A failure to start, or a non-zero exit, throws.
@discardableResult
private func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input)) }
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CommandFailed(command: ([executable] + arguments).joined(separator: " ")) }
    return String(decoding: printed, as: UTF8.self)
}

/// A program `run` started that ended with a non-zero exit code.
struct CommandFailed: Error, CustomStringConvertible {
    var command: String
    var description: String { "\(command) failed" }
}
