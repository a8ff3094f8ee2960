// A writer process for the multi-process and crash tests.
//
//   forkstore-stress-writer STORE PREFIX COUNT [FORK]
//
// Adds PREFIX-0 ... PREFIX-(COUNT-1) to a Tally on FORK (default main), one commit each,
// printing "done ITEM" after each commit returns, so the parent knows what was acknowledged.
import ForkStore
import ForkStoreTestSupport
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: forkstore-stress-writer STORE PREFIX COUNT [FORK]\n".utf8))
    exit(64)
}

do {
    let store = try Store<Tally>.open(at: arguments[1])
    let fork = try Fork(arguments.count > 4 ? arguments[4] : "main")
    for index in 0..<count {
        let item = "\(arguments[2])-\(index)"
        try store.update(fork, message: "Add \(item)") { tally in
            var next = tally ?? Tally()
            next.items.insert(item)
            tally = next
        }
        FileHandle.standardOutput.write(Data("done \(item)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("forkstore-stress-writer: \(error)\n".utf8))
    exit(1)
}
