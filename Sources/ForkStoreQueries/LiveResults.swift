import ForkStore

extension RecordStore where Record: IndexedRecord {
    /// A query's results now, and again after each change to the fork: local saves, deletes
    /// and transactions, merges into it, syncs through an exchange using this store object, and
    /// changes made by other store objects or processes (an app extension, `forknotes sync`).
    ///
    /// ```swift
    /// for try await films in store.results(of: RecordQuery<Film>().sorted(by: \.year).limit(20)) {
    ///     show(films)
    /// }
    /// ```
    ///
    /// Bursts coalesce: while one answer is being computed or waits to be taken, further
    /// changes make one more answer, not one each. A change that leaves the fork's head where
    /// the last answer saw it yields nothing. This store object's own changes are answered at
    /// once; other writers' changes are found by reading the fork's head every
    /// `checkInterval`, at least 10 ms (one reference read, nothing more while the head stays put). The sequence
    /// ends when the consuming task is cancelled, and throws what a query throws (a fork that
    /// is deleted, data of a newer model version).
    public func results(
        of query: RecordQuery<Record>, in fork: Fork = .main, checkInterval: Duration = .seconds(1)
    ) -> AsyncThrowingStream<[Record], any Error> {
        let changes = self.changes()
        // At most one pending "look again": a burst of changes collapses into it.
        let (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (results, output) = AsyncThrowingStream<[Record], any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wake.yield()
        let listener = Task {
            for await change in changes where change.fork == fork { wake.yield() }
            wake.finish()
        }
        // Other writers send this store object no events: look at the head now and then (at
        // most every 10 ms, so a zero interval cannot spin).
        let interval = max(checkInterval, .milliseconds(10))
        let checker = Task {
            while (try? await Task.sleep(for: interval)) != nil { wake.yield() }
        }
        let answerer = Task {
            var seen: CommitID?
            for await _ in wakeUps {
                do {
                    let last = seen
                    let answer = try await onStoreThread { () -> (head: CommitID, records: [Record])? in
                        guard try self.readableHead(of: fork).id != last else { return nil }
                        var records: [Record] = []
                        let head = try self.forEach(matching: query, in: fork) { records.append($0) }
                        return (head, records)
                    }
                    guard let answer else { continue }
                    output.yield(answer.records)
                    seen = answer.head
                } catch {
                    output.finish(throwing: error)
                    return
                }
            }
            output.finish()
        }
        output.onTermination = { _ in
            listener.cancel()
            checker.cancel()
            answerer.cancel()
        }
        return results
    }
}
