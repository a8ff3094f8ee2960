import ForkStoreGit

/// Who may change a shared store at each commit that arrives in one fetch (FORMAT.md §9).
///
/// Two lists are in force for an incoming commit: the one its own history gives it (its
/// parent's, or for a merge the participants merge rule over its parents and their merge
/// bases), and the one the receiving replica's `main` would hold after merging that history
/// (the same rule over `main`, the commit's history and their merge bases). The first keeps
/// every replica's verdict on a history the same; the second keeps a removal, a demotion or the
/// sharing itself that `main` already holds from being undone by a branch that starts before
/// it. Where `main` is shared, what arrives must grow from `main`'s history: against no common
/// ancestor, the rule would add another history's participants to `main`'s.
///
/// Files are read and decoded once per blob and the common ancestors with `main` found once per
/// line of history, so checking a fetch costs the same for each commit however long it is.
struct ParticipantsInForce {
    private let session: StoreSession
    /// The receiving replica's `main` head and its participants.
    private let main: Commit?
    private let onMain: ParticipantsFile?
    /// The commits of this fetch (a single-parent one shares its parent's merge base with `main`).
    private let arriving: Set<ObjectID>
    /// Decoded participants files, by blob id.
    private var files: [ObjectID: ParticipantsFile] = [:]
    /// The participants at each commit's best common ancestors with `main`, by commit id.
    private var sharedWithMain: [ObjectID: [ParticipantsFile?]] = [:]
    /// Known commits that arriving ones build on and that share history with `main`.
    private var growingFromMain: Set<ObjectID> = []
    /// Arriving checkpoints already checked (``StoreEngine/checkCheckpoint(_:inForce:in:)``):
    /// root commits that stand in for the commit they checkpoint.
    private var checkpoints: Set<ObjectID> = []
    /// The old history `main`'s lineage replaced, when `main` is rooted in a checkpoint whose
    /// archive this store keeps: found once, and only where a history shares none with `main`.
    private var oldMain: Commit??
    /// The archives this store keeps (checkpoint → old head), read from the store's refs: the
    /// session may be the transfer repository's, which borrows objects but holds no refs.
    var archives: [CommitID: ObjectID] = [:]
    /// The keys one of which must have signed, as an owner, every commit of this fetch that
    /// makes its history shared; empty: trust on first use.
    let trustedOwners: Set<ParticipantKey>

    init(
        main: Commit?, participants: ParticipantsFile?, arriving: Set<ObjectID>, trustedOwners: Set<ParticipantKey>,
        session: StoreSession
    ) {
        self.session = session
        self.main = main
        self.onMain = participants.flatMap(\.inForce)
        self.arriving = arriving
        self.trustedOwners = trustedOwners
    }

    /// The participants `commit`'s tree holds (nil: not shared), from a file already checked.
    mutating func participants(of commit: Commit) throws(StoreError) -> ParticipantsFile? {
        guard let entry = try session.entry(atPath: ParticipantsFile.path, inTree: commit.tree) else { return nil }
        if let known = files[entry.id] { return known.inForce }
        let bytes = try session.readBlob(entry.id, path: ParticipantsFile.path)
        let file = try ValueCodec.decode(ParticipantsFile.self, from: bytes, commit: commit.id, path: ParticipantsFile.path)
        files[entry.id] = file
        return file.inForce
    }

    /// Remembers a checked file, so its commit's children need not read it again.
    mutating func remember(_ file: ParticipantsFile, blob: ObjectID) { files[blob] = file }

    /// The participants `commit` builds on: its parent's; for two parents the merge rule over
    /// them and their merge bases. Nil for a first commit, or when the history has none.
    ///
    /// - Throws: ``StoreError/rejectedCommit(commit:path:rule:)`` for more than two parents
    ///   that hold different participants (ForkStore never writes such a commit).
    mutating func builtOn(_ commit: Commit, parents: [Commit]) throws(StoreError) -> ParticipantsFile? {
        var lists: [ParticipantsFile?] = []
        for parent in parents { lists.append(try participants(of: parent)) }
        guard let first = lists.first else { return nil }
        if lists.allSatisfy({ $0 == first }) { return first }
        guard parents.count == 2 else {
            throw StoreError.rejectedCommit(
                commit: commit.id, path: ParticipantsFile.path,
                rule: "it joins more than two histories holding different participants")
        }
        var atBases: [ParticipantsFile?] = []
        for base in try session.mergeBases(parents[0], parents[1]) { atBases.append(try participants(of: base)) }
        return ParticipantsFile.merged(bases: atBases, first: first, second: lists[1]).participants
    }

    /// The participants `main` would hold after merging the history `commit` builds on, whose
    /// own participants are `history`.
    mutating func mainAfterMerging(_ commit: Commit, builtOn history: ParticipantsFile?) throws(StoreError) -> ParticipantsFile? {
        guard history != onMain else { return onMain }
        return ParticipantsFile.merged(bases: try atCommonAncestors(of: commit), first: onMain, second: history).participants
    }

    /// Refuses, where `main` is shared, a commit of this fetch that starts a history of its own
    /// or builds on a known commit sharing no history with `main` (or, for a fetch that brings
    /// nothing new, a known head that shares none): a shared store's history grows from
    /// `main`'s first commit, whoever signed another's.
    mutating func checkGrowsFromMain(_ commit: Commit) throws(StoreError) {
        guard onMain != nil, main != nil else { return }
        func refuse(_ how: String) -> StoreError {
            .rejectedCommit(
                commit: commit.id, path: "",
                rule: "\(how), and a shared store takes only history that grows from main's first commit")
        }
        let id = commit.id.objectID, arrived = arriving.contains(id)
        if arrived, commit.parents.isEmpty, !checkpoints.contains(id) { throw refuse("it starts a history of its own") }
        let starts = arrived ? commit.parents.map(\.objectID).filter { !arriving.contains($0) } : [id]
        for start in starts where !growingFromMain.contains(start) {
            guard try !basesWithMain(session.commit(start)).isEmpty else {
                throw refuse(start == id ? "it is a history of its own" : "it builds on \(CommitID(start).short), a history of its own")
            }
            growingFromMain.insert(start)
        }
    }

    /// Notes an arriving checkpoint that passed its checks: it may start the lineage it roots.
    mutating func accept(checkpoint: Commit) { checkpoints.insert(checkpoint.id.objectID) }

    /// The participants of the receiving replica's `main` (nil: not shared).
    var mainParticipants: ParticipantsFile? { onMain }

    /// The best common ancestors of `main` and `commit`; where they share none and `main` is
    /// rooted in a checkpoint, those of its archive (the old history) and `commit`.
    private mutating func basesWithMain(_ commit: Commit) throws(StoreError) -> [Commit] {
        guard let main else { return [] }
        let bases = try session.mergeBases(main, commit)
        guard bases.isEmpty else { return bases }
        if oldMain == nil {
            let root = try session.lineageRoot(of: main.id.objectID)
            oldMain = .some(try root.isCheckpoint ? archives[root.id].map { (id) throws(StoreError) in try session.commit(id) } : nil)
        }
        if let old = oldMain ?? nil {
            let bases = try session.mergeBases(old, commit)
            if !bases.isEmpty { return bases }
        }
        // A known commit on a checkpoint lineage was checked when it arrived, its checkpoint
        // signed by an owner: it grows from the checkpoint, which stands in for main's history.
        let root = try session.lineageRoot(of: commit.id.objectID)
        guard root.isCheckpoint, !arriving.contains(root.id.objectID) else { return [] }
        return [root]
    }

    /// The participants at the best common ancestors of `main` and `commit`, found by walking up
    /// single-parent commits of this fetch to one already known (their ancestors with `main`
    /// are the same).
    private mutating func atCommonAncestors(of commit: Commit) throws(StoreError) -> [ParticipantsFile?] {
        var line: [ObjectID] = [], current = commit
        var found: [ParticipantsFile?] = []
        while true {
            let id = current.id.objectID
            if let known = sharedWithMain[id] {
                found = known
                break
            }
            line.append(id)
            if arriving.contains(id), current.parents.count == 1 {
                current = try session.commit(current.parents[0].objectID)
                continue
            }
            if checkpoints.contains(id) {
                // A checkpoint stands in for the commit it checkpoints, whose tree it holds.
                found = [try participants(of: current)]
                break
            }
            for base in try basesWithMain(current) { found.append(try participants(of: base)) }
            break
        }
        for id in line { sharedWithMain[id] = found }
        return found
    }
}

extension ParticipantsFile {
    /// The file as the rules read it: an empty list shares with nobody, as no file does.
    var inForce: ParticipantsFile? { participants.isEmpty ? nil : self }

    /// Why `key` may not sign a commit under this list (one that changes the participants,
    /// when `changingParticipants`); nil when they may.
    func refusal(of key: ParticipantKey, changingParticipants: Bool) -> String? {
        guard let participant = participant(with: key) else { return "it is signed by \(key), who is not a participant" }
        guard participant.access.mayWrite else { return "it is signed by \(participant.name ?? key.description), who may only read" }
        guard !changingParticipants || participant.access == .owner else { return "it changes the participants, which only an owner may do" }
        return nil
    }
}
