/// The longest common subsequence of two sequences, found with Myers' O((N+M)·D) algorithm
/// after trimming their common prefix and suffix, so the cost follows the size of the change.
enum Diff {
    /// For each element of `old`, the index of the element of `new` it matches, or nil.
    /// Matches are strictly increasing. Nil when the sequences differ by more than
    /// ``maximumEdits`` after trimming: the caller must then treat the whole as one change.
    static func matches<Element: Equatable>(_ old: [Element], _ new: [Element]) -> [Int?]? {
        var result = [Int?](repeating: nil, count: old.count)
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] {
            result[prefix] = prefix
            prefix += 1
        }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            result[old.count - 1 - suffix] = new.count - 1 - suffix
            suffix += 1
        }
        let oldMiddle = old[prefix..<(old.count - suffix)]
        let newMiddle = new[prefix..<(new.count - suffix)]
        guard let pairs = myers(oldMiddle, newMiddle) else { return nil }
        for (i, j) in pairs {
            result[i] = j
        }
        return result
    }

    /// Past this many edits the diff gives up, so time and memory stay bounded (the trace
    /// grows with the square of the edits) for inputs that are mostly unrelated.
    static let maximumEdits = 1_000

    /// Matched index pairs (in the slices' own indices) along a shortest edit script.
    private static func myers<Element: Equatable>(_ a: ArraySlice<Element>, _ b: ArraySlice<Element>) -> [(Int, Int)]? {
        let n = a.count, m = b.count
        guard n > 0, m > 0 else { return [] }
        let aStart = a.startIndex, bStart = b.startIndex
        let max = n + m
        let offset = max
        var v = [Int](repeating: 0, count: 2 * max + 2)
        // trace[d] holds v[k] for k in -d...d, as it was after step d.
        var trace: [[Int]] = []
        var found = false
        for d in 0...max {
            if d > maximumEdits { return nil }
            var snapshot = [Int](repeating: 0, count: 2 * d + 1)
            var k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = v[offset + k + 1]
                } else {
                    x = v[offset + k - 1] + 1
                }
                var y = x - k
                while x < n, y < m, a[aStart + x] == b[bStart + y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = x
                snapshot[k + d] = x
                if x >= n, y >= m { found = true }
                k += 2
            }
            trace.append(snapshot)
            if found { break }
        }
        // Walk back through the trace, collecting the diagonal (matching) moves.
        var pairs: [(Int, Int)] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let k = x - y
            let previousK: Int
            if d == 0 {
                previousK = 0
            } else {
                let previous = trace[d - 1]
                func at(_ k: Int) -> Int { previous[k + d - 1] }
                previousK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
            }
            let previousX = d == 0 ? 0 : trace[d - 1][previousK + d - 1]
            let previousY = previousX - previousK
            let startX = d == 0 ? 0 : (previousK == k + 1 ? previousX : previousX + 1)
            let startY = startX - k
            while x > startX, y > startY {
                x -= 1
                y -= 1
                pairs.append((aStart + x, bStart + y))
            }
            x = previousX
            y = previousY
        }
        return pairs.reversed()
    }
}
