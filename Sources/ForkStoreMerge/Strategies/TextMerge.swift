import ForkStore

/// A three-way text merge that keeps both sides' edits when they do not overlap.
///
/// Text is compared word by word: runs of letters and digits, runs of white space, and each
/// other character alone. Edits to different words merge, even next to each other. Where both
/// sides changed the same word, it is merged again character by character, so two small edits
/// of one word both survive, as long as each side kept at least half of the word's characters.
///
/// ```
/// ancestor "Fork Yeah", dominant "Fork Yeah!!!", subordinate "Fork yeah"  → "Fork yeah!!!"
/// ancestor "a b c",     dominant "a B c",        subordinate "a b C"      → "a B C"
/// ancestor "color",     dominant "colour",       subordinate "Color"      → "Colour"
/// ```
///
/// Where both sides rewrote the same words, the dominant side's version of that region is
/// kept; where both only inserted text at the same place, both insertions are kept, the
/// dominant side's first. Either way the conflict is reported. With no common ancestor, the
/// salvage keeps the dominant text.
///
/// Family: ``MergeLawFamily/sequence``.
public struct TextMerge: MergeStrategy {
    /// Makes a word-by-word text merge; it has no settings.
    public init() {}

    public var name: String { "text" }

    public var laws: MergeLawFamily { .sequence }

    public func merge(ancestor: String, dominant: String, subordinate: String) throws -> String {
        if dominant == subordinate || subordinate == ancestor { return dominant }
        if dominant == ancestor { return subordinate }
        MergeContext.strategyRan(name)
        let merged = try ThreeWayDiff.merge(
            ancestor: Self.words(ancestor), dominant: Self.words(dominant), subordinate: Self.words(subordinate)
        ) { region in
            if let merged = Self.mergedCharacters(region) { return [Substring(merged)] }
            let chosen = region.ancestor.isEmpty ? region.dominant + region.subordinate : region.dominant
            let decision = try MergeContext.conflict(
                strategy: name, ancestor: region.ancestor.joined(), dominant: region.dominant.joined(),
                subordinate: region.subordinate.joined(), chosen: chosen.joined())
            return decision.map { [Substring($0)] } ?? chosen
        }
        return merged.joined()
    }

    /// A region both sides changed, merged character by character; nil when the edits
    /// overlap, or when a side rewrote the region (kept less than half of its characters).
    static func mergedCharacters(_ region: ThreeWayDiff.ChangedRegion<Substring>) -> String? {
        let ancestor = Array(region.ancestor.joined()), dominant = Array(region.dominant.joined())
        let subordinate = Array(region.subordinate.joined())
        guard !ancestor.isEmpty else { return nil }
        for side in [dominant, subordinate] {
            guard let matches = Diff.matches(ancestor, side), matches.compactMap({ $0 }).count * 2 >= ancestor.count else {
                return nil
            }
        }
        struct Overlap: Error {}
        let merged = try? ThreeWayDiff.merge(ancestor: ancestor, dominant: dominant, subordinate: subordinate) {
            _ throws -> [Character] in throw Overlap()
        }
        return merged.map { String($0) }
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
