/// The participants merge rule (FORMAT.md §9): participant by participant against the merge
/// base, a change on one side taken, and where both sides changed one participant differently,
/// the entry granting less: a removal stays removed, a demotion stays in force. It depends only
/// on the three lists and the order of the two parents, never on clocks, so a peer that checks
/// a merge computes exactly what the merging replica wrote.
extension ParticipantsFile {
    /// The strategy named in a merge's report and trailers when both sides changed a participant.
    static let mergeStrategy = "least-access"

    /// The participants a merge of `first` and `second` (its parents, in order) holds, given
    /// their merge base's `base`; nil when the store is not shared (an empty list counts as
    /// not shared). `conflicted` tells that both sides changed something differently.
    static func merged(
        base: ParticipantsFile?, first: ParticipantsFile?, second: ParticipantsFile?
    ) -> (participants: ParticipantsFile?, conflicted: Bool) {
        if first == second || second == base { return (first, false) }
        if first == base { return (second, false) }
        // One side stopped sharing while the other changed who shares: sharing stays, as the
        // change left it (an owner can stop sharing again once both are known).
        guard let first, let second else { return (first ?? second, true) }
        let ancestor = base?.byKey ?? [:], ours = first.byKey, theirs = second.byKey
        var seen = Set<ParticipantKey>(), merged: [Participant] = [], conflicted = false
        for key in (first.participants + second.participants).map(\.key) where seen.insert(key).inserted {
            let old = ancestor[key], mine = ours[key], other = theirs[key]
            if mine == other || other == old {
                if let mine { merged.append(mine) }
            } else if mine == old {
                if let other { merged.append(other) }
            } else {
                conflicted = true
                if let mine, let other { merged.append(mine.grantsLess(than: other) ? mine : other) }
            }
        }
        return (merged.isEmpty ? nil : ParticipantsFile(participants: merged), conflicted)
    }

    /// Each key's entry (the first one, should a list name a key twice).
    private var byKey: [ParticipantKey: Participant] {
        Dictionary(participants.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The first key the list names twice, if any: such a list is refused.
    var repeatedKey: ParticipantKey? {
        var seen = Set<ParticipantKey>()
        return participants.first { !seen.insert($0.key).inserted }?.key
    }
}

extension Participant {
    /// Whether this entry grants less than `other` (for the same key): lower access, or for
    /// equal access the smaller name, so every replica picks the same entry.
    func grantsLess(than other: Participant) -> Bool {
        if access != other.access { return access.rank < other.access.rank }
        return (name ?? "").utf8.lexicographicallyPrecedes((other.name ?? "").utf8)
    }
}

extension Participant.Access {
    /// Read below write below owner.
    var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .owner: 2
        }
    }
}
