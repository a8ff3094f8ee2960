/// A three-way comparison of two sequences against their common ancestor, cut into chunks:
/// stable runs that neither side touched, and changed regions with each side's version.
enum ThreeWayDiff {
    /// A region at least one side changed.
    struct ChangedRegion<Element> {
        var ancestor: [Element]
        var dominant: [Element]
        var subordinate: [Element]
        /// For each ancestor element of the region, its index in `dominant`, if that side kept it.
        var dominantMatch: [Int?]
        /// For each ancestor element of the region, its index in `subordinate`, if that side kept it.
        var subordinateMatch: [Int?]

        /// Which elements of `dominant` are ancestor elements it kept (not insertions).
        var dominantKept: [Bool] { kept(dominantMatch, count: dominant.count) }
        /// Which elements of `subordinate` are ancestor elements it kept (not insertions).
        var subordinateKept: [Bool] { kept(subordinateMatch, count: subordinate.count) }

        private func kept(_ matches: [Int?], count: Int) -> [Bool] {
            var flags = [Bool](repeating: false, count: count)
            for case let index? in matches { flags[index] = true }
            return flags
        }
    }

    enum Chunk<Element> {
        /// Ancestor elements both sides kept.
        case stable([Element])
        case changed(ChangedRegion<Element>)
    }

    /// Chunks covering all three sequences in order; nil when a side differs from the
    /// ancestor by too much to diff (see ``Diff/maximumEdits``).
    static func chunks<Element: Equatable>(
        ancestor: [Element], dominant: [Element], subordinate: [Element]
    ) -> [Chunk<Element>]? {
        guard let toDominant = Diff.matches(ancestor, dominant),
            let toSubordinate = Diff.matches(ancestor, subordinate)
        else { return nil }
        var chunks: [Chunk<Element>] = []
        var stable: [Element] = []
        var a = 0, d = 0, s = 0
        func emitChanged(untilAncestor aEnd: Int, dominant dEnd: Int, subordinate sEnd: Int) {
            guard a < aEnd || d < dEnd || s < sEnd else { return }
            if !stable.isEmpty {
                chunks.append(.stable(stable))
                stable = []
            }
            chunks.append(.changed(ChangedRegion(
                ancestor: Array(ancestor[a..<aEnd]), dominant: Array(dominant[d..<dEnd]),
                subordinate: Array(subordinate[s..<sEnd]),
                dominantMatch: toDominant[a..<aEnd].map { $0.map { $0 - d } },
                subordinateMatch: toSubordinate[a..<aEnd].map { $0.map { $0 - s } })))
        }
        for index in ancestor.indices {
            guard let dIndex = toDominant[index], let sIndex = toSubordinate[index] else { continue }
            emitChanged(untilAncestor: index, dominant: dIndex, subordinate: sIndex)
            stable.append(ancestor[index])
            a = index + 1
            d = dIndex + 1
            s = sIndex + 1
        }
        emitChanged(untilAncestor: ancestor.count, dominant: dominant.count, subordinate: subordinate.count)
        if !stable.isEmpty { chunks.append(.stable(stable)) }
        return chunks
    }

    /// Merges sequences region by region: a region changed on one side only takes that side;
    /// changed the same way on both, it is taken once. A region both changed is first tried
    /// element by element (each side's deletions apply, and insertions at different places
    /// are both kept), so adjacent edits merge; only when both inserted different things at
    /// the same place does `conflict` decide the region.
    static func merge<Element: Equatable>(
        ancestor: [Element], dominant: [Element], subordinate: [Element],
        conflict: (ChangedRegion<Element>) throws -> [Element]
    ) rethrows -> [Element] {
        if dominant == subordinate { return dominant }
        if subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        guard let chunks = chunks(ancestor: ancestor, dominant: dominant, subordinate: subordinate) else {
            // Too different to align: the whole sequence is one conflicting region, with no
            // element known to be kept.
            return try conflict(ChangedRegion(
                ancestor: ancestor, dominant: dominant, subordinate: subordinate,
                dominantMatch: Array(repeating: nil, count: ancestor.count),
                subordinateMatch: Array(repeating: nil, count: ancestor.count)))
        }
        var result: [Element] = []
        result.reserveCapacity(max(dominant.count, subordinate.count))
        for chunk in chunks {
            switch chunk {
            case .stable(let elements):
                result += elements
            case .changed(let region):
                if region.dominant == region.ancestor {
                    result += region.subordinate
                } else if region.subordinate == region.ancestor || region.dominant == region.subordinate {
                    result += region.dominant
                } else if let merged = mergeByGaps(region) {
                    result += merged
                } else {
                    result += try conflict(region)
                }
            }
        }
        return result
    }

    /// Merges a region where each side's edits are deletions of ancestor elements and
    /// insertions into the gaps between them; nil when both sides inserted different
    /// elements into the same gap.
    private static func mergeByGaps<Element: Equatable>(_ region: ChangedRegion<Element>) -> [Element]? {
        let count = region.ancestor.count
        let mine = gaps(region.dominant, region.dominantMatch, ancestorCount: count)
        let theirs = gaps(region.subordinate, region.subordinateMatch, ancestorCount: count)
        var result: [Element] = []
        for gap in 0...count {
            let (left, right) = (mine[gap], theirs[gap])
            if left == right || right.isEmpty {
                result += left
            } else if left.isEmpty {
                result += right
            } else {
                return nil
            }
            if gap < count, region.dominantMatch[gap] != nil, region.subordinateMatch[gap] != nil {
                result.append(region.ancestor[gap])
            }
        }
        return result
    }

    /// A side's insertions per gap: gap `g` is before ancestor element `g`. Insertions that
    /// replace deleted elements go to the gap just after the last element the side kept.
    private static func gaps<Element>(_ side: [Element], _ matches: [Int?], ancestorCount: Int) -> [[Element]] {
        var gaps = [[Element]](repeating: [], count: ancestorCount + 1)
        var gap = 0, next = 0
        for (ancestorIndex, match) in matches.enumerated() {
            guard let match else { continue }
            gaps[gap] += side[next..<match]
            next = match + 1
            gap = ancestorIndex + 1
        }
        gaps[gap] += side[next...]
        return gaps
    }
}
