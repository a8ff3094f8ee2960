import ForkStoreGit

/// Hears how a fetch's check goes: commits checked so far, and of how many.
package typealias IncomingCheckProgress = (_ checked: Int, _ total: Int) -> Void

/// The checks every commit that arrives from elsewhere passes before anything of it can reach
/// `cloud` or `main`: its trailers, then its tree and the blobs it adds or changes (by the
/// layout). Nothing that arrives is trusted, whoever wrote it.
extension StoreEngine {
    /// Where a fetched head that failed validation is kept for inspection.
    static var quarantineReference: String { "refs/forkstore/quarantine" }

    /// How many record files the walk leaves for the check ahead before it waits for it:
    /// their paths and entries take about 10 MB.
    static var maximumWaitingRecords: Int { 65_536 }

    /// Checks every commit reachable from `head` but from none of `known` (commits this store
    /// already holds, checked when they arrived or written here), oldest first, and returns
    /// them in that order, with every object they add that the checks walked (the commits, and
    /// the trees and blobs that differ from each one's first parent). `known` starts with
    /// `main`'s head, whose participants are `trusted`; each commit's signature is checked
    /// against the participants in force for it (``ParticipantsInForce``), and where `main` is
    /// shared, what arrives must grow from `main`'s history. With `trustedOwners`, the
    /// head must be shared and every commit that makes a history shared signed by one of them.
    /// `archives` are the store's archive refs (checkpoint → old head): where `main` is on a
    /// checkpoint lineage, history that grows from its archive grows from `main` (FORMAT.md §16).
    ///
    /// - Throws: ``StoreError/unknownModelVersion(found:known:commit:)`` (a halt) for data of
    ///   a newer model version, ``StoreError/rejectedCommit(commit:path:rule:)`` for anything
    ///   else that breaks the format.
    ///
    /// `progress` hears how many of the commits had their trees walked (their record files
    /// may wait for the check ahead), at most ten times a second, and once when all were
    /// checked. Checks of one fetch share a `memory`.
    func validateIncoming(
        _ head: ObjectID, notIn known: [ObjectID], trusting trusted: ParticipantsFile?,
        trustedOwners: Set<ParticipantKey> = [], archives: [CommitID: ObjectID] = [:], in session: StoreSession,
        memory: IncomingCheckMemory = IncomingCheckMemory(), progress: IncomingCheckProgress? = nil
    ) throws -> (commits: [ObjectID], objects: Set<ObjectID>) {
        defer { memory.closeFetchedTrees() }
        let arriving = try git("listing the fetched commits") { () throws(GitError) in
            Array(try session.repository.walk(from: head, hiding: known).reversed())
        }
        var objects = Set(arriving)
        let main = try known.first.map { (id) throws(StoreError) in try session.commit(id) }
        var inForce = ParticipantsInForce(
            main: main, participants: trusted, arriving: objects, trustedOwners: trustedOwners, session: session)
        inForce.archives = archives
        if arriving.isEmpty { try inForce.checkGrowsFromMain(session.commit(head)) }
        // Trees and blobs first, newest commit first: a fetched pack holds the newest version
        // of a tree whole and older ones as deltas made from it, so each tree read here is one
        // delta from a base just read. What fails is kept and reported in the commits' order below.
        // The blobs are checked ahead on other threads while the walk reads trees, as the newest
        // commit's model version reads them (a head start: a head that cannot be read is
        // refused below), but for those `memory` has from the fetch (checked as they
        // arrived); the record files the walk meets meanwhile wait for it.
        var ahead: IncomingCheckAhead?
        if !arriving.isEmpty, let newest = try? session.commit(head), memory.startsCheckAhead(for: newest.modelVersion) {
            ahead = layout.startCheckAhead(
                DataOrigin(newest), limits: blobLimits,
                reading: .packs(session.repository.packs(), skipping: memory.checkedBlobs(modelVersion: newest.modelVersion)))
        }
        var layoutTrailers = [[Trailer]](repeating: [], count: arriving.count)
        var layoutFailures: [Int: any Error] = [:]
        var waiting: [(index: Int, commit: Commit, checked: CheckedTree)] = [], waitingRecords = 0
        func finishCheckAhead() {
            ahead?.finish(into: memory)
            ahead = nil
            for (index, commit, checked) in waiting {
                do {
                    layoutTrailers[index] = try layout.checkDeferredRecords(
                        of: checked, in: commit, limits: blobLimits, memory: memory, session: session
                    ).trailers
                } catch {
                    layoutFailures[index] = error
                }
            }
            waiting = []
        }
        // Each commit is read once per pass: a commit's parent is, mostly, the commit checked next.
        var parentRead: Commit?
        var reported = ContinuousClock.now
        for index in arriving.indices.reversed() {
            memory.nextCommit()
            let checked = arriving.count - 1 - index
            if let progress, checked > 0, ContinuousClock.now - reported > .milliseconds(100) {
                progress(checked, arriving.count)
                reported = ContinuousClock.now
            }
            do {
                let id = arriving[index]
                let commit = try parentRead.flatMap { $0.id.objectID == id ? $0 : nil } ?? session.commit(id)
                let parent = try commit.parents.first.map { (id) throws(StoreError) in try session.commit(id.objectID) }
                parentRead = parent
                let checked = try layout.validate(
                    commit, against: parent, limits: blobLimits, memory: memory, deferringRecords: ahead != nil, in: session)
                objects.formUnion(checked.walked)
                if checked.isComplete {
                    layoutTrailers[index] = checked.trailers
                } else {
                    waiting.append((index, commit, checked))
                    waitingRecords += checked.deferred.count
                }
            } catch {
                layoutFailures[index] = error
            }
            if let running = ahead, running.isDone || waitingRecords > Self.maximumWaitingRecords { finishCheckAhead() }
        }
        finishCheckAhead()
        var previous: Commit?
        for (index, id) in arriving.enumerated() {
            let commit = try session.commit(id)
            defer { previous = commit }
            do {
                try session.checkStamps(of: commit)
                if let failure = layoutFailures[index] { throw failure }
                var parents: [Commit] = []
                for parent in commit.parents {
                    parents.append(try previous.flatMap { $0.id == parent ? $0 : nil } ?? session.commit(parent.objectID))
                }
                try checkCheckpoint(commit, inForce: &inForce, in: session)
                try checkSharing(of: commit, parents: parents, inForce: &inForce, limit: options.maximumRecordSize, in: session)
                try inForce.checkGrowsFromMain(commit)
                try checkLayoutTrailers(of: commit, expected: layoutTrailers[index])
            } catch let error as StoreError {
                throw Self.rejection(error, in: commit)
            }
        }
        if !arriving.isEmpty { progress?(arriving.count, arriving.count) }
        if !arriving.isEmpty, !trustedOwners.isEmpty, try inForce.participants(of: session.commit(head)) == nil {
            throw StoreError.rejectedCommit(
                commit: CommitID(head), path: ParticipantsFile.path,
                rule: "it is not shared, and this replica takes only a store shared by one of its trusted owners")
        }
        return (arriving, objects)
    }

    /// A trailer the layout keeps (a record count, found by the layout's check of the tree)
    /// must tell the truth when a commit has it; commits of older writers may lack it.
    private func checkLayoutTrailers(of commit: Commit, expected trailers: [Trailer]) throws {
        for expected in trailers {
            guard let stated = commit.trailer(expected.key), stated != expected.value else { continue }
            throw StoreError.rejectedCommit(
                commit: commit.id, path: "", rule: "its \(expected.key) is \(stated), but its tree says \(expected.value)")
        }
    }

    /// What a failure to read an incoming commit's data means for the exchange: a halt stays a
    /// halt (the app needs an update), everything else the data did wrong is a rejection that
    /// names the commit, the path and the rule.
    private static func rejection(_ error: StoreError, in commit: Commit) -> StoreError {
        func refuse(_ path: String, _ rule: String) -> StoreError { .rejectedCommit(commit: commit.id, path: path, rule: rule) }
        let path = error.path ?? "", reason = error.reason ?? ""
        switch error.code {
        case .invalidJSON: return refuse(path, "it is not valid JSON: \(reason)")
        case .undecodableValue: return refuse(path, "it does not decode: \(reason)")
        case .migrationFailed:
            return refuse(path, "migrating it from model version \(error.foundVersion ?? 0) failed: \(reason)")
        case .unsupportedModelVersion:
            return refuse(
                "", "its model version \(error.foundVersion ?? 0) is older than the oldest this app reads (\(error.supportedVersion ?? 0))")
        case .missingModelVersion: return refuse("", "it has no Model-Version trailer")
        case .malformedCommit: return refuse("", reason)
        default: return error
        }
    }
}

extension ContentLayout {
    /// Checks a stored JSON blob that arrived: within `limits`, valid JSON without duplicate
    /// keys, in the canonical form every writer must produce, and every asset reference in it
    /// well-formed (FORMAT.md §13.1), naming an asset within `limits`. Returns its bytes and
    /// the document they parse to, so nothing parses them again.
    func checkedBlob(
        _ entry: TreeEntry, path: String, in commit: Commit, limits: BlobLimits, session: StoreSession
    ) throws(StoreError) -> (bytes: [UInt8], document: JSONValue) {
        let limit = limits.size
        func refuse(_ rule: String) -> StoreError { .rejectedCommit(commit: commit.id, path: path, rule: rule) }
        guard entry.isPlainFile else {
            throw refuse("only plain files (mode 100644) may hold data; this entry has mode \(String(entry.mode, radix: 8))")
        }
        let header = try git("reading \(path)", object: entry.id.hex) { () throws(GitError) in
            try session.repository.objectHeader(entry.id)
        }
        guard header.size <= limit else {
            throw refuse("it is \(header.size) bytes, over the limit of \(limit) bytes")
        }
        let bytes = try session.readBlob(entry.id, path: path)
        switch Self.checkedDocument(ofBlob: bytes, limits: limits) {
        case .success(let document): return (bytes, document)
        case .failure(let broken): throw refuse(broken.rule)
        }
    }

    /// The document a stored JSON blob's bytes hold, or the rule they break: valid JSON
    /// without duplicate keys, in the canonical form, every asset reference in it well-formed
    /// and within `limits`. (Its size and its entry's mode are checked before it is read.)
    static func checkedDocument(ofBlob bytes: [UInt8], limits: BlobLimits) -> Result<JSONValue, BrokenBlobRule> {
        let document: JSONValue
        do {
            document = try CanonicalJSON.parse(bytes)
        } catch {
            return .failure(BrokenBlobRule(rule: "it is not valid JSON: \(error.description)"))
        }
        guard CanonicalJSON.serialize(document) == bytes else { return .failure(BrokenBlobRule(rule: "it is not in canonical JSON form")) }
        // Refused here, before any byte of an asset is fetched for it.
        if AssetReferences.mayHoldReferences(bytes),
            let problem = AssetReferences(in: document, maximumSize: limits.assetSize).problems.first
        {
            return .failure(BrokenBlobRule(rule: "the asset reference at \(problem.pointer) is not accepted: \(problem.reason)"))
        }
        return .success(document)
    }
}

/// The rule an incoming blob breaks, in words that follow "it" (see
/// ``ContentLayout/checkedDocument(ofBlob:limits:)``).
struct BrokenBlobRule: Error {
    let rule: String
}
