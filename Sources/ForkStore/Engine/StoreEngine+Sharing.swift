import ForkStoreGit
import Foundation

/// Participants and signatures: who may change a shared store, checked on every incoming commit.
extension StoreEngine {
    /// The participants file a tree holds; nil when the store is not shared.
    func participants(inTree tree: ObjectID, of commit: Commit, session: StoreSession) throws(StoreError) -> ParticipantsFile? {
        let path = ParticipantsFile.path
        guard let entry = try session.entry(atPath: path, inTree: tree) else { return nil }
        let bytes = try session.readBlob(entry.id, path: path)
        return try ValueCodec.decode(ParticipantsFile.self, from: bytes, commit: commit.id, path: path)
    }

    /// The participants on a fork's head.
    func participants(in fork: Fork) throws -> [Participant] {
        try read { session in
            let head = try session.head(of: fork)
            return try participants(inTree: head.tree, of: head, session: session)?.participants ?? []
        }
    }

    /// Replaces the participants on `main` in one commit (an empty list stops sharing). Peers
    /// take the change only when an owner signed it: open the store with the owner's
    /// ``StoreOptions/signingKey``.
    func setParticipants(_ participants: [Participant], message: String) throws -> Commit {
        let path = ParticipantsFile.path
        let bytes = participants.isEmpty ? nil : try ValueCodec.encode(ParticipantsFile(participants: participants))
        return try commit(on: .main, message: message) { session, head in
            if let bytes {
                return try session.updatedTree(head.tree, applying: [.upsert(path: path, blob: session.writeBlob(bytes, path: path))])
            }
            guard try session.entry(atPath: path, inTree: head.tree) != nil else { return head.tree }
            return try session.updatedTree(head.tree, applying: [.remove(path: path)])
        }
    }

    /// Checks an incoming commit's participants file (when it has one) and, when the store is
    /// shared (`trusted` is set), its signature: made by a participant who may write, and by an
    /// owner when the commit changes the participants.
    func checkSharing(of commit: Commit, trusted: ParticipantsFile?, limit: Int, in session: StoreSession) throws(StoreError) {
        func refuse(_ rule: String, _ path: String = "") -> StoreError { .rejectedCommit(commit: commit.id, path: path, rule: rule) }
        let path = ParticipantsFile.path
        let own = try session.entry(atPath: path, inTree: commit.tree)
        var parentEntries: [TreeEntry?] = []
        for parent in commit.parents {
            parentEntries.append(try session.entry(atPath: path, inTree: session.commit(parent.objectID).tree))
        }
        let changesParticipants = parentEntries.isEmpty ? own != nil : parentEntries.allSatisfy { $0?.id != own?.id }
        if changesParticipants, let own {
            let bytes = try layout.checkedBlob(own, path: path, in: commit, limit: limit, session: session)
            do {
                _ = try JSONDecoder().decode(ParticipantsFile.self, from: Data(bytes))
            } catch {
                throw refuse("it is not a participants file: \(error)", path)
            }
        }
        guard let trusted, !trusted.participants.isEmpty else { return }
        let signed = try git("reading the signature of \(commit.id.short)") { () throws(GitError) in
            try session.repository.commitSignature(commit.id.objectID)
        }
        guard let signed else { throw refuse("it is not signed, and this store takes only commits signed by a participant") }
        let key: ParticipantKey
        do {
            key = try SSHSignature.signer(of: signed.signedData, armored: signed.signature)
        } catch {
            throw refuse("its signature does not hold: \(error.description)")
        }
        guard let participant = trusted.participant(with: key) else {
            throw refuse("it is signed by \(key), who is not a participant")
        }
        guard participant.access.mayWrite else {
            throw refuse("it is signed by \(participant.name ?? key.description), who may only read")
        }
        if changesParticipants, participant.access != .owner {
            throw refuse("it changes the participants, which only an owner may do", path)
        }
    }

    /// The participants file of a merge: a change on one side is taken, a change on both sides
    /// keeps the later side's (and is reported), applied to the layout's merged `tree`.
    func mergedParticipants(
        into tree: ObjectID, base: Commit?, dominant: Commit, subordinate: Commit, session: StoreSession
    ) throws -> ObjectID {
        let path = ParticipantsFile.path
        func blob(_ tree: ObjectID?) throws -> ObjectID? { try tree.flatMap { try session.entry(atPath: path, inTree: $0)?.id } }
        let ancestor = try blob(base?.tree), mine = try blob(dominant.tree), theirs = try blob(subordinate.tree)
        var chosen = theirs == ancestor ? mine : (mine == ancestor ? theirs : mine)
        if mine != ancestor, theirs != ancestor, mine != theirs {
            func json(_ id: ObjectID?) throws -> JSONValue? {
                try id.map { try ValueCodec.parse(session.readBlob($0, path: path), commit: dominant.id, path: path) }
            }
            let decided = try MergeContext.inside(path) {
                MergeContext.conflict(
                    strategy: MergeDecision.lastWriterWins.rawValue, ancestor: try json(ancestor), dominant: try json(mine),
                    subordinate: try json(theirs), chosen: try json(mine))
            }
            chosen = try decided.map { try session.writeBlob(CanonicalJSON.serialize($0), path: path) }
        }
        guard try chosen != blob(tree) else { return tree }
        return try session.updatedTree(tree, applying: [chosen.map { .upsert(path: path, blob: $0) } ?? .remove(path: path)])
    }
}

extension StoreOptions {
    /// Signs new commits with ``signingKey``, when there is one.
    var commitSigner: (([UInt8]) throws -> String)? {
        signingKey.map { key in { content in try key.sign(content) } }
    }

    /// The author and committer of new commits.
    var commitSignature: Signature { Signature(name: authorName, email: authorEmail) }
}
