/// The participants merge rule (FORMAT.md §9.1): participant by participant against the merge
/// base (against each, for several), a change on one side taken, and where both sides changed
/// one participant differently, the entry granting less: a removal stays removed, a demotion
/// stays in force, but never so that no one is left in charge. It depends only on the lists and the order of the two parents, never on
/// clocks, so a peer that checks a merge computes exactly what the merging replica wrote.
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
        var merged: [Participant] = [], conflicted = false
        for key in keys(first, second) {
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
        let kept = ParticipantsFile(participants: merged).keepingSomeoneInCharge(of: [first, second], order: keys(first, second))
        return (kept.participants.isEmpty ? nil : kept, conflicted)
    }

    /// Rule 4 (FORMAT.md §9.1): concurrent removals never leave a store that both sides share
    /// without anyone in charge. Where every list of `sides` holds an owner and this one holds
    /// none (two owners removed or demoted each other), every owner of a side is an owner again;
    /// where this list is empty though every side shares (each removed the other's
    /// participants), every participant of a side is back. Each at the entry granting least
    /// among the sides that hold them so, in the rule's `order` of keys.
    func keepingSomeoneInCharge(of sides: [ParticipantsFile], order: [ParticipantKey]) -> ParticipantsFile {
        let restoring: (Participant) -> Bool
        if !participants.contains(where: { $0.access == .owner }), sides.allSatisfy({ $0.participants.contains { $0.access == .owner } }) {
            restoring = { $0.access == .owner }
        } else if participants.isEmpty {
            restoring = { _ in true }
        } else {
            return self
        }
        let current = byKey
        var kept: [Participant] = []
        for key in order {
            let restored = sides.compactMap { $0.participant(with: key) }.filter(restoring).min { $0.grantsLess(than: $1) }
            if let entry = restored ?? current[key] { kept.append(entry) }
        }
        return ParticipantsFile(participants: kept)
    }

    /// The participants a merge of `first` and `second` holds given the lists at all their
    /// best common ancestors `bases` (none for unrelated histories). With several (a
    /// criss-cross), the rule against each base, combined by least access: a participant is
    /// kept only where every shared result keeps them, at the least access any gives (a removal
    /// wins). So no choice of base grants more than another, and the result depends neither on
    /// the bases' order nor on their ranks. A result that is not shared restricts nothing:
    /// sharing stays where any result shares; rule 4 keeps someone in charge of the
    /// combination, as of each result. Combining different results is a conflict.
    static func merged(
        bases: [ParticipantsFile?], first: ParticipantsFile?, second: ParticipantsFile?
    ) -> (participants: ParticipantsFile?, conflicted: Bool) {
        let results = (bases.isEmpty ? [nil] : bases).map { merged(base: $0, first: first, second: second) }
        let lists = results.map(\.participants)
        if lists.allSatisfy({ $0 == lists[0] }) { return (lists[0], results.contains { $0.conflicted }) }
        let shared = lists.compactMap { $0?.byKey }
        var kept: [Participant] = []
        for key in keys(first, second) {
            let entries = shared.compactMap { $0[key] }
            guard entries.count == shared.count, var least = entries.first else { continue }
            for entry in entries.dropFirst() where entry.grantsLess(than: least) { least = entry }
            kept.append(least)
        }
        let combined = ParticipantsFile(participants: kept).keepingSomeoneInCharge(
            of: lists.compactMap { $0 }, order: keys(first, second))
        return (combined.participants.isEmpty ? nil : combined, true)
    }

    /// Every key of `first` and `second`, once, in the order a merged list keeps: `first`'s
    /// order, then `second`'s additions in `second`'s order.
    private static func keys(_ first: ParticipantsFile?, _ second: ParticipantsFile?) -> [ParticipantKey] {
        var seen = Set<ParticipantKey>()
        return ((first?.participants ?? []) + (second?.participants ?? [])).map(\.key).filter { seen.insert($0).inserted }
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
