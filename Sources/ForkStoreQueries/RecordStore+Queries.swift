import ForkStore

extension RecordStore where Record: IndexedRecord {
    /// The records a query finds on a fork, in its order.
    ///
    /// Answered from the collection's index (see ``RecordQuery``), which is first brought to the
    /// fork's head from the tree difference since it was last used: after a one-record commit
    /// that reads one record. A query on fields that are not indexed scans the fork instead.
    /// Damaged record files are left out (`recordsAndProblems(in:)` names them).
    public func query(_ query: RecordQuery<Record>, in fork: Fork = .main) throws -> [Record] {
        var found: [Record] = []
        try forEachRecord(matching: query, in: fork) { found.append($0) }
        return found
    }

    /// Calls `body` with each record a query finds, in its order, decoding a batch at a time:
    /// memory stays bounded however many records match (when the index answers the query).
    public func forEachRecord(matching query: RecordQuery<Record>, in fork: Fork = .main, _ body: (Record) throws -> Void) throws {
        _ = try forEach(matching: query, in: fork, body)
    }

    /// ``forEachRecord(matching:in:_:)``, returning the head the records were read at.
    func forEach(matching query: RecordQuery<Record>, in fork: Fork, _ body: (Record) throws -> Void) throws -> CommitID {
        if let (head, rows) = try index().rows(matching: query, in: fork, of: self) {
            try forEachStored(rows, at: head, body)
            return head.id
        }
        let head = try readableHead(of: fork).id
        try query.page(of: try matching(query, in: fork).sorted(by: query.precedes)).forEach(body)
        return head
    }

    /// How many records on a fork pass a query's filters (its limit and offset aside).
    public func count(matching query: RecordQuery<Record>, in fork: Fork = .main) throws -> Int {
        if let count = try index().count(matching: query, in: fork, of: self) { return count }
        return try matching(query, in: fork).count
    }

    /// Brings the fork's index to its head now (a first use builds it), so that the next query
    /// is fast; queries do this themselves when needed.
    public func refreshIndex(of fork: Fork = .main) throws {
        try index().refresh(fork, of: self)
    }

    /// Every record the query's filters pass, in storage order: the answer when the index
    /// cannot give it.
    private func matching(_ query: RecordQuery<Record>, in fork: Fork) throws -> [Record] {
        var matching: [Record] = []
        try forEachRecord(in: fork, onProblem: { _ in }) { record in
            if query.matches(record) { matching.append(record) }
        }
        return matching
    }

    /// The collection's index, made on first use. From then on, each sync that takes a fetch
    /// into `main` brings it to the new head before the sync returns.
    func index() throws -> RecordIndex<Record> {
        try engine.companion(of: RecordIndex<Record>.self) {
            let index = RecordIndex<Record>(storePath: path)
            // The store, not held: the engine holds the listener, and the store the engine.
            engine.onLanding(LandingListener(
                starting: { progress in index.reportingLanding(to: progress) },
                landed: { [weak self] in
                    // A cache: what fails here, the next query does again.
                    if let self { try? index.refresh(.main, of: self) }
                    index.reportingLanding(to: nil)
                }))
            return index
        }
    }
}
