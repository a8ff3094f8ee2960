import ForkStore
import ForkStoreExchange

struct Note: Resource, Identifiable {
    static let modelVersion = 1
    var id: String
    var title: String
}

let store = try RecordStore<Note>.open(at: "/tmp/notes.store")
let exchange = Exchange(store: store, remote: try Remote("git://sync.example.com/notes.git"))
do {
    let report = try await exchange.sync()
    print("pushed \(report.pushedCommits) commits")
} catch {
    switch error.code {
    case .halted:
        print("The remote holds model version \(error.foundVersion ?? 0): update the app.")
    case .authenticationFailed, .accessDenied:
        print("Check the account: \(error.reason ?? "")")
    case .store where error.storeError?.code == .rejectedCommit:
        print("Refused commit \(error.storeError?.commit?.short ?? "?"): \(error.storeError?.reason ?? "")")
    default:
        print(error.isTransient ? "Will retry: \(error)" : "Sync failed: \(error)")
    }
}
