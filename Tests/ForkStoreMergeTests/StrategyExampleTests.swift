import ForkStore
@testable import ForkStoreMerge
import Testing

/// The documented example of each strategy, plus its edge rules.
@Suite("Strategy examples")
struct StrategyExampleTests {
    @Test func lastWriterWins() throws {
        let lww = LastWriterWins<String>()
        #expect(try lww.merge(ancestor: "Draft", dominant: "Final", subordinate: "Draft") == "Final")
        #expect(try lww.merge(ancestor: "Draft", dominant: "Draft", subordinate: "Sent") == "Sent")
        let (result, conflicts, strategies) = try MergeContext.collecting {
            try lww.merge(ancestor: "Draft", dominant: "Final", subordinate: "Sent")
        }
        #expect(result == "Final")
        #expect(conflicts.count == 1 && conflicts[0].decision == .string("Final"))
        #expect(conflicts[0].ours == .string("Final") && conflicts[0].theirs == .string("Sent"))
        #expect(strategies == ["last-writer-wins"])
    }

    @Test func counterAddsBothSidesDeltas() throws {
        let counter = Counter<Int>()
        #expect(try counter.merge(ancestor: 10, dominant: 13, subordinate: 15) == 18)
        #expect(try counter.merge(ancestor: 10, dominant: 7, subordinate: 12) == 9)
        #expect(try counter.merge(ancestor: 10, dominant: 12, subordinate: 12) == 12)
        #expect(try counter.salvage(dominant: 3, subordinate: 4) == 7)
        #expect(try Counter<Int8>().merge(ancestor: 0, dominant: 100, subordinate: 100 - 1) == 127)
        #expect(try Counter<Int8>().salvage(dominant: 100, subordinate: 90) == 127)
        #expect(try counter.salvage(dominant: 5, subordinate: 5) == 5)
    }

    @Test func addWinsSet() throws {
        let set = AddWinsSet<String>()
        #expect(try set.merge(ancestor: ["red", "blue"], dominant: ["blue"], subordinate: ["red", "blue", "green"]) == ["blue", "green"])
        // Removed on both sides: gone. Added on both: kept once.
        #expect(try set.merge(ancestor: ["a", "b"], dominant: ["b", "c"], subordinate: ["b", "c", "d"]) == ["b", "c", "d"])
        #expect(try set.salvage(dominant: ["a"], subordinate: ["b"]) == ["a", "b"])
    }

    @Test func optionalKeepsAnEditOverAClear() throws {
        let optional = OptionalMerge(LastWriterWins<Int>())
        #expect(try optional.merge(ancestor: 1, dominant: nil, subordinate: 1) == nil)
        let (result, conflicts, _) = try MergeContext.collecting {
            try optional.merge(ancestor: 1, dominant: nil, subordinate: 2)
        }
        #expect(result == 2 && conflicts.count == 1)
        #expect(try optional.merge(ancestor: nil, dominant: 5, subordinate: nil) == 5)
    }

    @Test func dictionaryMergesPerKeyAndRecurses() throws {
        let dictionary = DictionaryMerge<String, TextMerge>(values: TextMerge())
        let merged = try dictionary.merge(
            ancestor: ["keep": "x", "edit": "Fork Yeah", "drop": "y", "clash": "z"],
            dominant: ["keep": "x", "edit": "Fork Yeah!!!", "clash": "z", "new": "mine"],
            subordinate: ["keep": "x", "edit": "Fork yeah", "drop": "y", "new2": "theirs"])
        // "drop" was removed by the dominant side, "clash" by the subordinate: both go.
        #expect(merged == ["keep": "x", "edit": "Fork yeah!!!", "new": "mine", "new2": "theirs"])
        // Removed on one side, edited on the other: the edit is kept, with the key in the path.
        let (kept, conflicts, _) = try MergeContext.collecting {
            try dictionary.merge(ancestor: ["k": "old"], dominant: [:], subordinate: ["k": "new"])
        }
        #expect(kept == ["k": "new"])
        #expect(conflicts.map(\.path) == ["/k"])
    }

    @Test func orderedArray() throws {
        let array = OrderedArrayMerge<String>()
        #expect(try array.merge(ancestor: ["a", "b", "c"], dominant: ["a", "x", "b", "c"], subordinate: ["a", "b", "y"]) == ["a", "x", "b", "y"])
        let (clash, conflicts, _) = try MergeContext.collecting {
            try array.merge(ancestor: ["a", "b", "c"], dominant: ["a", "x", "c"], subordinate: ["a", "y", "c"])
        }
        #expect(clash == ["a", "x", "y", "c"])
        #expect(conflicts.count == 1)
        // Both inserted the same element at the same place: once.
        #expect(try array.merge(ancestor: ["a"], dominant: ["a", "z"], subordinate: ["a", "z", "w"]) == ["a", "z", "w"])
        // Unchanged elements are never duplicated, deletions from both sides apply.
        #expect(try array.merge(ancestor: [1, 2, 3, 4, 5].map(String.init), dominant: ["1", "3", "4", "5"], subordinate: ["1", "2", "3", "5"]) == ["1", "3", "5"])
    }

    struct Item: Identifiable, Equatable, Codable, Sendable {
        var id: Int
        var text: String
    }

    @Test func identifiableArray() throws {
        let items = IdentifiableArrayMerge(elements: LastWriterWins<Item>())
        let base = [Item(id: 1, text: "one"), Item(id: 2, text: "two"), Item(id: 3, text: "three")]
        // Dominant edits 1 and moves 3 first; subordinate deletes 2 and appends 4.
        let mine = [Item(id: 3, text: "three"), Item(id: 1, text: "ONE"), Item(id: 2, text: "two")]
        let theirs = [Item(id: 1, text: "one"), Item(id: 3, text: "three"), Item(id: 4, text: "four")]
        let merged = try items.merge(ancestor: base, dominant: mine, subordinate: theirs)
        #expect(merged.map(\.id) == [3, 1, 4])
        #expect(merged.first { $0.id == 1 }?.text == "ONE")
        // Delete versus edit: the edit wins and is reported.
        let (kept, conflicts, _) = try MergeContext.collecting {
            try items.merge(ancestor: base, dominant: [base[0], base[2]], subordinate: [base[0], Item(id: 2, text: "TWO"), base[2]])
        }
        #expect(kept.map(\.text) == ["one", "TWO", "three"])
        #expect(conflicts.map(\.path) == ["/2"])
    }

    @Test func textKeepsNonOverlappingEdits() throws {
        let text = TextMerge()
        #expect(try text.merge(ancestor: "Fork Yeah", dominant: "Fork Yeah!!!", subordinate: "Fork yeah") == "Fork yeah!!!")
        #expect(try text.merge(ancestor: "Fork Yeah", dominant: "Fork yeah", subordinate: "Fork Yeah!!!") == "Fork yeah!!!")
        #expect(try text.merge(ancestor: "a b c", dominant: "a B c", subordinate: "a b C") == "a B C")
        let (clash, conflicts, _) = try MergeContext.collecting {
            try text.merge(ancestor: "one two", dominant: "one three", subordinate: "one four")
        }
        #expect(clash == "one three")
        #expect(conflicts.first?.ancestor == .string("two") && conflicts.first?.decision == .string("three"))
        // Both inserted at the same place: both kept, dominant first.
        #expect(try text.merge(ancestor: "Hello", dominant: "Hello world", subordinate: "Hello there") == "Hello world there")
        #expect(TextMerge.words("Fork  yeah, 42!").map(String.init) == ["Fork", "  ", "yeah", ",", " ", "42", "!"])
    }

    @Test func aResolverCanOverrideTheDecision() throws {
        let lww = LastWriterWins<String>()
        let (result, conflicts, _) = try MergeContext.collecting(dominantIsOurs: true, resolver: { _ in .theirs }) {
            try lww.merge(ancestor: "a", dominant: "ours", subordinate: "theirs")
        }
        #expect(result == "theirs")
        #expect(conflicts.first?.overriddenByApp == true)
        let (custom, _, _) = try MergeContext.collecting(resolver: { _ in .value(.string("both")) }) {
            try lww.merge(ancestor: "a", dominant: "ours", subordinate: "theirs")
        }
        #expect(custom == "both")
        #expect(throws: StoreError.self) {
            try MergeContext.collecting(resolver: { _ in .value(.number("1")) }) {
                try lww.merge(ancestor: "a", dominant: "ours", subordinate: "theirs")
            }
        }
    }

    @Test func changesTooLargeToAlignAreOneReportedConflictNotASilentSplice() throws {
        let ancestorWords = (0..<3_000).map { "w\($0)" }
        var mine = ancestorWords, theirs = ancestorWords
        for index in 100..<700 { mine[index] = "m\(index)" }
        for index in 2_000..<2_600 { mine[index] = "m\(index)" }
        theirs[1_500] = "FIXED"
        let (merged, conflicts, _) = try MergeContext.collecting {
            try TextMerge().merge(
                ancestor: ancestorWords.joined(separator: " "), dominant: mine.joined(separator: " "),
                subordinate: theirs.joined(separator: " "))
        }
        #expect(merged == mine.joined(separator: " "))
        #expect(conflicts.count == 1)
    }

    @Test func largeUnrelatedTextsStayBounded() throws {
        let a = String(repeating: "alpha ", count: 5_000)
        let b = String(repeating: "beta ", count: 5_000)
        let c = String(repeating: "gamma ", count: 5_000)
        let merged = try TextMerge().merge(ancestor: a, dominant: b, subordinate: c)
        #expect(merged == b)
    }
}
