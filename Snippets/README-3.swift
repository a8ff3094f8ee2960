import ForkStore
import ForkStoreExchange

struct Settings: Resource {
    static let modelVersion = 1
    var theme: String
}

let store = try Store<Settings>.open(at: "/tmp/settings.store")
let remote = try Remote("ssh://git@sync.example.com/srv/settings.git",
                        credentials: .sshKey(username: "git", privateKey: "/home/me/.ssh/id_ed25519"))
let exchange = Exchange(store: store, remote: remote)
let report = try await exchange.sync()   // fetch into cloud, check model versions, merge, push
print(report.fetchedCommits, report.pushedCommits)
exchange.start(every: .seconds(60))      // periodic, backing off while offline
exchange.syncAfterChanges()              // after local changes to main, debounced
