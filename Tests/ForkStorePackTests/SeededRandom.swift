/// A seeded generator (SplitMix64), so that a failing random case can be run again: each
/// test names its seed in its failure messages.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// Text-like bytes from a small alphabet, so that random targets share runs with their base.
    mutating func text(_ count: Int) -> [UInt8] {
        let alphabet = Array("abcdefghij {}\":,0123\n".utf8)
        return (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &self)] }
    }
}
