#if FORKSTORE_FUZZ
import CLibFuzzer
#endif
import Foundation

/// One fuzz target: what one input is run through, and the properties checked on it.
///
/// All targets live in one executable, chosen at run time by `FORKSTORE_FUZZ_TARGET`: one build
/// and one link (the slow part, with the sanitizers) serve every target, and `scripts/fuzz.sh`
/// runs them one at a time. Adding a target is one file in `Fuzz/Targets/` that defines a
/// `static let` on `FuzzTarget`, plus its line in `FuzzTarget.all`.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void
}

extension FuzzTarget {
    /// Every target, by name. One line per target.
    static let all: [FuzzTarget] = [
        .json,
        .jsonValueDecoder,
        .canonicalNumbers,
        .commitMessage,
        .signedCommit,
        .recordPath,
        .manifest,
        .ssh,
        .packEntry,
        .packIndex,
        .commitHeader,
        .delta,
        .wire,
        .incomingPack,
        .packReader,
        .lfsBatch,
        .assetReferences,
        .treeEntries,
    ]

    static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// Stops the run when a property does not hold: libFuzzer keeps the input as a crash.
func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("property failed at \(file):\(line): \(message())\n".utf8))
    abort()
}

/// The input as text, shown in a failed property's message.
func shown(_ bytes: [UInt8]) -> String {
    String(reflecting: String(decoding: bytes.prefix(400), as: UTF8.self))
}

/// Runs libFuzzer on the target `FORKSTORE_FUZZ_TARGET` names (a `-sanitize=fuzzer` build,
/// `scripts/fuzz.sh`); without the fuzzer (a plain `swift build`), replays inputs through a
/// target, to reproduce a crash under the debugger: `forkstore-fuzz <target> <file>...`.
@main
enum ForkStoreFuzz {
    static func main() {
        #if FORKSTORE_FUZZ
        _ = selectedTarget  // an unknown name stops here, before libFuzzer starts
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
        #else
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget.named(name) else {
            print("usage: forkstore-fuzz <target> <input file>...  (targets: \(FuzzTarget.all.map(\.name).joined(separator: ", ")))")
            print("To fuzz, run scripts/fuzz.sh.")
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                exit(1)
            }
            target.run(Array(data))
            print("\(path): ok")
        }
        #endif
    }
}

#if FORKSTORE_FUZZ
/// The target `FORKSTORE_FUZZ_TARGET` names; the run stops at once if it names none.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FORKSTORE_FUZZ_TARGET"] ?? ""
    if name == "list" {  // for scripts/fuzz.sh
        print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
        exit(0)
    }
    guard let target = FuzzTarget.named(name) else {
        FileHandle.standardError.write(Data("FORKSTORE_FUZZ_TARGET must be one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

/// One input: libFuzzer's main (linked in by -sanitize=fuzzer) needs this symbol, though
/// SwiftPM links `main` to ours.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}
#endif
