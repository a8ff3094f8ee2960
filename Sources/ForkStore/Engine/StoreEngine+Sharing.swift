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
        let path = ParticipantsFile.path, file = ParticipantsFile(participants: participants)
        if let key = file.repeatedKey { throw StoreError.encodingFailed(reason: "the participants name \(key) twice") }
        let bytes = participants.isEmpty ? nil : try ValueCodec.encode(file)
        return try commit(on: .main, message: message) { session, head in
            if let bytes {
                return try session.updatedTree(head.tree, applying: [.upsert(path: path, blob: session.writeBlob(bytes, path: path))])
            }
            guard try session.entry(atPath: path, inTree: head.tree) != nil else { return head.tree }
            return try session.updatedTree(head.tree, applying: [.remove(path: path)])
        }
    }

    /// Checks an incoming commit's participants file and signature (FORMAT.md §9): a new file
    /// must be a participants file spelled as a writer writes it; where participants are in
    /// force (those the commit builds on, and those `main` would hold after merging that
    /// history), the commit must be signed by a participant who may write in each, and by an
    /// owner in each when its participants differ from what it builds on. With trusted owners,
    /// a commit that makes its history shared must be signed by one of them, named an owner.
    func checkSharing(
        of commit: Commit, parents: [Commit], inForce: inout ParticipantsInForce, limit: Int, in session: StoreSession
    ) throws(StoreError) {
        func refuse(_ rule: String, _ path: String = "") -> StoreError { .rejectedCommit(commit: commit.id, path: path, rule: rule) }
        let path = ParticipantsFile.path
        if let own = try session.entry(atPath: path, inTree: commit.tree) {
            var parentBlobs: Set<ObjectID> = []
            for parent in parents {
                if let entry = try session.entry(atPath: path, inTree: parent.tree) { parentBlobs.insert(entry.id) }
            }
            if !own.isPlainFile || !parentBlobs.contains(own.id) {
                let bytes = try layout.checkedBlob(own, path: path, in: commit, limits: BlobLimits(size: limit), session: session).bytes
                switch ParticipantsFile.strictlyDecoded(bytes) {
                case .success(let file): inForce.remember(file, blob: own.id)
                case .failure(let broken): throw refuse(broken.description, path)
                }
            }
        }
        let history = try inForce.builtOn(commit, parents: parents)
        let own = try inForce.participants(of: commit)
        let changesParticipants = own != history
        let afterMerging = try inForce.mainAfterMerging(commit, builtOn: history)
        let sharingNeedsTrustedOwner = history == nil && own != nil && !inForce.trustedOwners.isEmpty
        guard history != nil || afterMerging != nil || sharingNeedsTrustedOwner else { return }

        let key = try signer(of: commit, in: session)
        if sharingNeedsTrustedOwner, !inForce.trustedOwners.contains(key) || own?.participant(with: key)?.access != .owner {
            throw refuse(
                "it shares the store, signed by \(key), and this replica takes only a store shared by one of its "
                    + "trusted owners, named an owner in it", path)
        }
        let rulePath = changesParticipants ? path : ""
        if let history, let refusal = history.refusal(of: key, changingParticipants: changesParticipants) {
            throw refuse(refusal, rulePath)
        }
        if let afterMerging, let refusal = afterMerging.refusal(of: key, changingParticipants: changesParticipants) {
            guard let history else { throw refuse(refusal, rulePath) }
            // The history let them sign it, `main` no longer does: an owner removed or demoted
            // them here while the commit was on its way, or it is dated back (FORMAT.md §9.2).
            let who = history.participant(with: key).map { "\($0.name.map { "\($0) " } ?? "")(\(key))" } ?? key.description
            throw refuse(
                "\(refusal) in the list main holds, which removed or demoted \(who) while this commit was made on an "
                    + "older list. To take it, an owner adds \(who) back as before, syncs, then removes them again "
                    + "(their commits made after that stay refused); or the remote's admin removes the commit", rulePath)
        }
    }

    /// The key whose signature `commit` carries, read as git reads it (FORMAT.md §9).
    func signer(of commit: Commit, in session: StoreSession) throws(StoreError) -> ParticipantKey {
        func refuse(_ rule: String) -> StoreError { .rejectedCommit(commit: commit.id, path: "", rule: rule) }
        let signed = try git("reading the signature of \(commit.id.short)") { () throws(GitError) in
            try session.repository.commitSignature(commit.id.objectID)
        }
        guard let signed else { throw refuse("it is not signed, and this store takes only commits signed by a participant") }
        do {
            let commit = try signed.get()
            return try SSHSignature.signer(of: commit.signedData, armored: commit.signature)
        } catch {
            throw refuse("its signature does not hold: \(error)")
        }
    }

    /// The participants file of a merge of `first` and `second` (its parents, in order) by the
    /// participants merge rule over their merge `bases`, applied to the layout's merged `tree`. Where both sides changed
    /// a participant differently, the conflict is reported; the app's resolver does not decide
    /// it, since peers accept only what the rule gives.
    func mergedParticipants(
        into tree: ObjectID, bases: [Commit], first: Commit, second: Commit, session: StoreSession
    ) throws -> ObjectID {
        let path = ParticipantsFile.path
        func blob(_ commit: Commit?) throws -> ObjectID? { try commit.flatMap { try session.entry(atPath: path, inTree: $0.tree)?.id } }
        func file(_ commit: Commit?) throws -> ParticipantsFile? {
            try commit.flatMap { try participants(inTree: $0.tree, of: $0, session: session)?.inForce }
        }
        var ancestors: [ParticipantsFile?] = []
        for base in bases { ancestors.append(try file(base)) }
        let ours = try file(first), theirs = try file(second)
        let (merged, conflicted) = ParticipantsFile.merged(bases: ancestors, first: ours, second: theirs)
        let chosen: ObjectID?
        switch merged {
        case nil: chosen = nil
        case ours: chosen = try blob(first)
        case theirs: chosen = try blob(second)
        case let merged?: chosen = try session.writeBlob(ValueCodec.encode(merged), path: path)
        }
        if conflicted {
            func json(_ file: ParticipantsFile?) throws -> JSONValue? { try file.map { try ValueCodec.parse(ValueCodec.encode($0), commit: first.id, path: path) } }
            MergeContext.report(
                MergeConflict(
                    path: JSONPointer.string([path]), strategy: ParticipantsFile.mergeStrategy, ancestor: try json(ancestors.first ?? nil),
                    ours: try json(ours), theirs: try json(theirs), decision: try json(merged)))
        }
        guard try chosen != session.entry(atPath: path, inTree: tree)?.id else { return tree }
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
