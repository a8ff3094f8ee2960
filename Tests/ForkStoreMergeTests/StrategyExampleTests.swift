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
        // Both sides counted 2 more: 4 events, although both ended at 12.
        #expect(try counter.merge(ancestor: 10, dominant: 12, subordinate: 12) == 14)
        #expect(try counter.merge(ancestor: 4, dominant: 10, subordinate: 10) == 16)
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

    @Test func optionalClearAgainstEditFollowsTheRemovalPolicy() throws {
        let optional = OptionalMerge(LastWriterWins<Int>())
        #expect(try optional.merge(ancestor: 1, dominant: nil, subordinate: 1) == nil)
        // The later side (dominant) cleared it: with the default policy the clear wins.
        let (latest, reported, _) = try MergeContext.collecting {
            try optional.merge(ancestor: 1, dominant: nil, subordinate: 2)
        }
        #expect(latest == nil && reported.map(\.strategy) == ["removal-wins"])
        // The later side edited it: the edit wins.
        #expect(try optional.merge(ancestor: 1, dominant: 3, subordinate: nil) == 3)
        // Edit wins, whatever the order.
        let (kept, conflicts, _) = try MergeContext.collecting(removalPolicy: .editWins) {
            try optional.merge(ancestor: 1, dominant: nil, subordinate: 2)
        }
        #expect(kept == 2 && conflicts.map(\.strategy) == ["edit-wins-over-removal"])
        #expect(try OptionalMerge(LastWriterWins<Int>(), removal: .editWins).merge(ancestor: 1, dominant: nil, subordinate: 2) == 2)
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
        // Removed on the later side, edited on the other: the removal wins by default, the
        // edit with `.editWins`; either way the conflict carries the key in its path.
        let (removed, reported, _) = try MergeContext.collecting {
            try dictionary.merge(ancestor: ["k": "old"], dominant: [:], subordinate: ["k": "new"])
        }
        #expect(removed == [:])
        #expect(reported.map(\.path) == ["/k"])
        let editWins = DictionaryMerge<String, TextMerge>(values: TextMerge(), removal: .editWins)
        let (kept, conflicts, _) = try MergeContext.collecting {
            try editWins.merge(ancestor: ["k": "old"], dominant: [:], subordinate: ["k": "new"])
        }
        #expect(kept == ["k": "new"])
        #expect(conflicts.map(\.path) == ["/k"])
        // Counters inside count both sides, even when both ended equal.
        let counts = DictionaryMerge<String, Counter<Int>>(values: Counter())
        #expect(try counts.merge(ancestor: ["a": 1, "b": 0], dominant: ["a": 2, "b": 0], subordinate: ["a": 2, "b": 1]) == ["a": 3, "b": 1])
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
        // Delete versus edit: the later side (here the delete) wins, or the edit with
        // `.editWins`; both are reported.
        let deleted = [base[0], base[2]], edited = [base[0], Item(id: 2, text: "TWO"), base[2]]
        let (gone, reported, _) = try MergeContext.collecting {
            try items.merge(ancestor: base, dominant: deleted, subordinate: edited)
        }
        #expect(gone.map(\.text) == ["one", "three"])
        #expect(reported.map(\.path) == ["/2"])
        let (kept, conflicts, _) = try MergeContext.collecting {
            try IdentifiableArrayMerge(elements: LastWriterWins<Item>(), removal: .editWins)
                .merge(ancestor: base, dominant: deleted, subordinate: edited)
        }
        #expect(kept.map(\.text) == ["one", "TWO", "three"])
        #expect(conflicts.map(\.path) == ["/2"])
        // A duplicate id in one side's change does not reach the result.
        let one = Item(id: 1, text: "1"), two = Item(id: 2, text: "2"), three = Item(id: 3, text: "3")
        let duplicated = try items.merge(
            ancestor: [one, two, three], dominant: [one, two, three], subordinate: [one, two, three, three, Item(id: 4, text: "4")])
        #expect(duplicated.map(\.id) == [1, 2, 3, 4])
    }

    @Test func textKeepsNonOverlappingEdits() throws {
        let text = TextMerge()
        #expect(try text.merge(ancestor: "Fork Yeah", dominant: "Fork Yeah!!!", subordinate: "Fork yeah") == "Fork yeah!!!")
        #expect(try text.merge(ancestor: "Fork Yeah", dominant: "Fork yeah", subordinate: "Fork Yeah!!!") == "Fork yeah!!!")
        #expect(try text.merge(ancestor: "a b c", dominant: "a B c", subordinate: "a b C") == "a B C")
        // Two small edits of one word merge character by character, without a conflict.
        let (colour, none, _) = try MergeContext.collecting {
            try text.merge(ancestor: "my color", dominant: "my colour", subordinate: "my Color")
        }
        #expect(colour == "my Colour" && none.isEmpty)
        #expect(try text.merge(ancestor: "color", dominant: "Color", subordinate: "colour") == "Colour")
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
