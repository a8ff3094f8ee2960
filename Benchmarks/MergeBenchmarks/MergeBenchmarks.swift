import Benchmark
import ForkStoreMerge

// Each merge runs next to a baseline that does the unavoidable part of the same work in the
// same process (splitting every word; finding the changed keys), so the ratio shows the strategy's
// own cost.

/// A ~100 KB document of words, and two copies with a few edits each.
private struct Documents {
    let ancestor: String
    let dominant: String
    let subordinate: String

    init() {
        let vocabulary = ["fork", "merge", "commit", "tree", "blob", "yeah", "store", "record", "sync", "data"]
        var words: [String] = []
        var generator = SplitMix(seed: 42)
        var size = 0
        while size < 100_000 {
            let word = vocabulary[Int(generator.next() % UInt64(vocabulary.count))]
            words.append(word)
            size += word.utf8.count + 1
        }
        ancestor = words.joined(separator: " ")
        var mine = words, theirs = words
        for index in stride(from: 1_000, to: words.count, by: words.count / 5) { mine[index] = "MINE" }
        for index in stride(from: 1_500, to: words.count, by: words.count / 5) { theirs[index] = "THEIRS" }
        mine.append("!!!")
        dominant = mine.joined(separator: " ")
        subordinate = theirs.joined(separator: " ")
    }
}

/// 100,000 keys, and two copies with 10 changed keys each.
private struct Dictionaries {
    let ancestor: [String: String]
    let dominant: [String: String]
    let subordinate: [String: String]

    init() {
        var base: [String: String] = [:]
        base.reserveCapacity(100_000)
        for index in 0..<100_000 { base["key-\(index)"] = "value \(index)" }
        var mine = base, theirs = base
        for index in 0..<10 {
            mine["key-\(index * 997)"] = "mine \(index)"
            theirs["key-\(50_000 + index * 991)"] = "theirs \(index)"
        }
        ancestor = base
        dominant = mine
        subordinate = theirs
    }
}

/// A small deterministic generator, so every run merges the same documents.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(3),
        maxIterations: 200)

    let documents = Documents()
    Benchmark("Text merge, 100 KB, 5 edits per side") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try TextMerge().merge(
                ancestor: identity(documents.ancestor), dominant: identity(documents.dominant),
                subordinate: identity(documents.subordinate)))
        }
    }
    Benchmark("Baseline: split the three 100 KB documents into words") { benchmark in
        for _ in benchmark.scaledIterations {
            for text in identity([documents.ancestor, documents.dominant, documents.subordinate]) {
                blackHole(text.split(separator: " ", omittingEmptySubsequences: false).count)
            }
        }
    }

    let dictionaries = Dictionaries()
    Benchmark("Dictionary merge, 100k keys, 10 changed per side") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try DictionaryMerge<String, LastWriterWins<String>>(values: LastWriterWins()).merge(
                ancestor: identity(dictionaries.ancestor), dominant: identity(dictionaries.dominant),
                subordinate: identity(dictionaries.subordinate)))
        }
    }
    Benchmark("Baseline: find the changed keys of the 100k-key dictionaries") { benchmark in
        for _ in benchmark.scaledIterations {
            let (ancestor, dominant, subordinate) = identity(
                (dictionaries.ancestor, dictionaries.dominant, dictionaries.subordinate))
            var changed = 0
            for (key, value) in ancestor where dominant[key] != value || subordinate[key] != value {
                changed += 1
            }
            blackHole(changed)
        }
    }
}
