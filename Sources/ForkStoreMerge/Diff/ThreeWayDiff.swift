/// A three-way comparison of two sequences against their common ancestor, cut into chunks:
/// stable runs that neither side touched, and changed regions with each side's version.
enum ThreeWayDiff {
    enum Chunk<Element> {
        /// Ancestor elements both sides kept.
        case stable([Element])
        /// A region at least one side changed: the ancestor's version and each side's.
        case changed(ancestor: [Element], dominant: [Element], subordinate: [Element],
                     dominantKept: [Bool], subordinateKept: [Bool])
    }

    /// Chunks covering all three sequences in order.
    ///
    /// In a changed chunk, `dominantKept[i]` tells whether the dominant side's element `i`
    /// is an ancestor element (kept) rather than an insertion; likewise for the subordinate.
    static func chunks<Element: Equatable>(
        ancestor: [Element], dominant: [Element], subordinate: [Element]
    ) -> [Chunk<Element>] {
        let toDominant = Diff.matches(ancestor, dominant)
        let toSubordinate = Diff.matches(ancestor, subordinate)
        var dominantMatched = [Bool](repeating: false, count: dominant.count)
        var subordinateMatched = [Bool](repeating: false, count: subordinate.count)
        for case let j? in toDominant { dominantMatched[j] = true }
        for case let j? in toSubordinate { subordinateMatched[j] = true }

        var chunks: [Chunk<Element>] = []
        var stable: [Element] = []
        var a = 0, d = 0, s = 0
        func emitChanged(untilAncestor aEnd: Int, dominant dEnd: Int, subordinate sEnd: Int) {
            guard a < aEnd || d < dEnd || s < sEnd else { return }
            if !stable.isEmpty {
                chunks.append(.stable(stable))
                stable = []
            }
            chunks.append(.changed(
                ancestor: Array(ancestor[a..<aEnd]), dominant: Array(dominant[d..<dEnd]),
                subordinate: Array(subordinate[s..<sEnd]),
                dominantKept: Array(dominantMatched[d..<dEnd]), subordinateKept: Array(subordinateMatched[s..<sEnd])))
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

    /// Merges sequences chunk by chunk: a region changed on one side only takes that side,
    /// a region changed the same way on both takes it once, and `conflict` decides the rest.
    static func merge<Element: Equatable>(
        ancestor: [Element], dominant: [Element], subordinate: [Element],
        conflict: (_ ancestor: [Element], _ dominant: [Element], _ subordinate: [Element],
                   _ dominantKept: [Bool], _ subordinateKept: [Bool]) throws -> [Element]
    ) rethrows -> [Element] {
        if dominant == subordinate { return dominant }
        if subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        var result: [Element] = []
        result.reserveCapacity(max(dominant.count, subordinate.count))
        for chunk in chunks(ancestor: ancestor, dominant: dominant, subordinate: subordinate) {
            switch chunk {
            case .stable(let elements):
                result += elements
            case .changed(let base, let mine, let theirs, let mineKept, let theirsKept):
                if mine == base {
                    result += theirs
                } else if theirs == base || mine == theirs {
                    result += mine
                } else {
                    result += try conflict(base, mine, theirs, mineKept, theirsKept)
                }
            }
        }
        return result
    }
}
