import ForkStore

/// A three-way text merge that keeps both sides' edits when they do not overlap.
///
/// Text is compared word by word: runs of letters and digits, runs of white space, and each
/// other character alone. Edits to different words merge, even next to each other; two
/// different edits of the same word conflict.
///
/// ```
/// ancestor "Fork Yeah", dominant "Fork Yeah!!!", subordinate "Fork yeah"  → "Fork yeah!!!"
/// ancestor "a b c",     dominant "a B c",        subordinate "a b C"      → "a B C"
/// ```
///
/// Where both sides changed the same words, the dominant side's version of that region is
/// kept; where both only inserted text at the same place, both insertions are kept, the
/// dominant side's first. Either way the conflict is reported. With no common ancestor, the
/// salvage keeps the dominant text.
public struct TextMerge: MergeStrategy {
    public init() {}

    public var name: String { "text" }

    public func merge(ancestor: String, dominant: String, subordinate: String) throws -> String {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        let merged = try ThreeWayDiff.merge(
            ancestor: Self.words(ancestor), dominant: Self.words(dominant), subordinate: Self.words(subordinate)
        ) { region in
            let chosen = region.ancestor.isEmpty ? region.dominant + region.subordinate : region.dominant
            let decision = try MergeContext.conflict(
                strategy: name, ancestor: region.ancestor.joined(), dominant: region.dominant.joined(),
                subordinate: region.subordinate.joined(), chosen: chosen.joined())
            return decision.map { [Substring($0)] } ?? chosen
        }
        return merged.joined()
    }

    /// Splits text into words, runs of white space, and single other characters.
    static func words(_ text: String) -> [Substring] {
        var words: [Substring] = []
        var start = text.startIndex
        var currentKind: Kind?
        for index in text.indices {
            let kind = Kind(text[index])
            if let currentKind, kind == currentKind, kind != .other {
                continue
            }
            if index != start { words.append(text[start..<index]) }
            start = index
            currentKind = kind
        }
        if start != text.endIndex { words.append(text[start...]) }
        return words
    }

    private enum Kind: Equatable {
        case word, space, other

        init(_ character: Character) {
            if character.isLetter || character.isNumber || character == "_" {
                self = .word
            } else if character.isWhitespace {
                self = .space
            } else {
                self = .other
            }
        }
    }
}
