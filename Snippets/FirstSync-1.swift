import ForkStoreExchange

func watch(_ exchange: Exchange) async {
    for await event in exchange.events() {
        switch event {
        case .progress(let transfer): print("fetched \(transfer.objects) objects")
        case .checkProgress(let check): print("checked \(check.commits) of \(check.totalCommits) commits")
        case .indexProgress(let indexing): print("indexed \(indexing.records) of \(indexing.totalRecords) records")
        case .finished: return
        default: continue
        }
    }
}
