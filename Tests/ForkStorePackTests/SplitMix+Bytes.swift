import ForkStoreTestSupport

extension SplitMix {
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// Text-like bytes from a small alphabet, so that random targets share runs with their base.
    mutating func text(_ count: Int) -> [UInt8] {
        let alphabet = Array("abcdefghij {}\":,0123\n".utf8)
        return (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &self)] }
    }
}
