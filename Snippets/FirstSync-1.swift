import ForkStoreExchange

func watch(_ exchange: Exchange) async {
    for await event in exchange.events() {
        switch event {
        case .progress(let transfer): print("fetched \(transfer.objects) objects")
        case .checkProgress(let check): print("checked \(check.commits) of \(check.totalCommits) commits")
        case .finished: return
        default: continue
        }
    }
}
