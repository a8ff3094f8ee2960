import ForkStorePack
import Testing

@Suite("Entry headers and offset distances at their boundaries")
struct EntryHeaderTests {
    /// Sizes where the header gains a byte: 4 bits in the first byte, then 7 per byte.
    static let sizes: [Int] = [0, 1, 15, 16, 2047, 2048, 262_143, 262_144, 1 << 25, (1 << 32) - 1, 1 << 32, 1 << 59, Int.max]

    @Test(arguments: sizes)
    func aHeaderReadsBackAsWritten(size: Int) throws {
        for type in [EntryHeader.EntryType.commit, .tree, .blob, .tag, .offsetDelta, .referenceDelta] {
            let encoded = EntryHeader(type: type, size: size).encoded
            // git's length: one byte, then one more for every 7 bits past the first 4.
            var expectedLength = 1, rest = size >> 4
            while rest != 0 { expectedLength += 1; rest >>= 7 }
            #expect(encoded.count == expectedLength)
            let (header, length) = try encoded.withUnsafeBytes { try EntryHeader.decode($0) }
            #expect(header == EntryHeader(type: type, size: size) && length == encoded.count)
            // Every byte but the last says another follows.
            #expect(encoded.dropLast().allSatisfy { $0 & 0x80 != 0 } && encoded.last.map { $0 & 0x80 == 0 } == true)
        }
    }

    @Test func aHeaderCutShortOrOfAnUnknownTypeIsRefused() {
        let cut = EntryHeader(type: .blob, size: 1 << 20).encoded.dropLast()
        #expect(throws: PackError.self) { try Array(cut).withUnsafeBytes { try EntryHeader.decode($0) } }
        #expect(throws: PackError.self) { try [UInt8]().withUnsafeBytes { try EntryHeader.decode($0) } }
        for unknown: UInt8 in [0, 5] {
            #expect(throws: PackError.self) { try [unknown << 4 | 3].withUnsafeBytes { try EntryHeader.decode($0) } }
        }
        // Ten continued bytes: a size past what any Int holds.
        let endless = [UInt8](repeating: 0xFF, count: 11) + [0x01]
        #expect(throws: PackError.self) { try endless.withUnsafeBytes { try EntryHeader.decode($0) } }
    }

    /// Distances where git's encoding gains a byte: 127, then each continued group counted
    /// from one (128 is `0x80 0x00`, 16,511 is `0xFF 0x7F`, 16,512 is `0x80 0x80 0x00`).
    @Test(arguments: [1, 127, 128, 16_511, 16_512, 2_113_663, 2_113_664, 1 << 31, (1 << 32) + 5, 1 << 50])
    func anOffsetDistanceReadsBackAsWritten(distance: Int) throws {
        let encoded = OffsetDistance.encode(distance)
        let (decoded, length) = try encoded.withUnsafeBytes { try OffsetDistance.decode($0) }
        #expect(decoded == distance && length == encoded.count)
        switch distance {
        case 128: #expect(encoded == [0x80, 0x00])
        case 16_511: #expect(encoded == [0xFF, 0x7F])
        case 16_512: #expect(encoded == [0x80, 0x80, 0x00])
        default: break
        }
    }

    @Test func anOffsetDistanceCutShortIsRefused() {
        #expect(throws: PackError.self) { try [UInt8(0x80)].withUnsafeBytes { try OffsetDistance.decode($0) } }
        #expect(throws: PackError.self) { try [UInt8](repeating: 0xFF, count: 12).withUnsafeBytes { try OffsetDistance.decode($0) } }
    }
}
