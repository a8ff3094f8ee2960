import ForkStorePack
import ForkStoreTestSupport
import Testing

@Suite("Deltas: encoder and applier")
struct DeltaTests {
    @Test(arguments: 0..<200)
    func aRandomDeltaRebuildsItsTarget(seed: Int) throws {
        var random = SplitMix(state: UInt64(seed))
        let base = random.text(Int.random(in: 16...4_000, using: &random))
        // A target made of pieces of the base and new text, in a random order.
        var target: [UInt8] = []
        for _ in 0..<Int.random(in: 1...12, using: &random) {
            if Bool.random(using: &random), base.count > 16 {
                let start = Int.random(in: 0..<base.count - 16, using: &random)
                target += base[start..<min(base.count, start + Int.random(in: 16...600, using: &random))]
            } else {
                target += random.text(Int.random(in: 1...300, using: &random))
            }
        }
        // No delta is a valid answer (the target shares too little); most seeds make one.
        guard let delta = base.withUnsafeBytes({ b in target.withUnsafeBytes { Delta.bytes(from: b, to: $0) } }) else { return }
        #expect(delta.count < target.count / 2, "seed \(seed): a delta is kept only under half the target")
        let rebuilt = try delta.withUnsafeBytes { d in try base.withUnsafeBytes { try Delta.apply(d, to: $0) } }
        #expect(rebuilt == target, "seed \(seed)")
    }

    @Test func aCopyOfExactly0x10000BytesAndABaseOver16MBRebuild() throws {
        var random = SplitMix(state: 16)
        // 17 MB of base: copies from past 16 MB need the fourth offset byte; a copy of exactly
        // 0x10000 bytes is written with size 0; longer runs are split at 0x10000.
        let base = random.bytes(17 << 20)
        let far = (16 << 20) + 12_345
        for length in [0x10000, 0x10001, 3 * 0x10000, 0xFFFF] {
            let target = Array(base[far..<far + length]) + random.bytes(40) + Array(base[100..<100 + length])
            let delta = try #require(base.withUnsafeBytes { b in target.withUnsafeBytes { Delta.bytes(from: b, to: $0) } })
            let rebuilt = try delta.withUnsafeBytes { d in try base.withUnsafeBytes { try Delta.apply(d, to: $0) } }
            #expect(rebuilt == target, "copy of \(length) bytes")
        }
        // The instruction git reads as "copy 0x10000": offset bytes only, size bits clear.
        let exact: [UInt8] = [0x80, 0x80, 0x04, 0x80, 0x80, 0x04, 0x80]  // sizes 65,536 and 65,536; copy offset 0 size 0
        let small = [UInt8](repeating: 7, count: 0x10000)
        let rebuilt = try exact.withUnsafeBytes { d in try small.withUnsafeBytes { try Delta.apply(d, to: $0) } }
        #expect(rebuilt == small)
    }

    @Test func aTreeDeltaCopiesUnchangedEntries() throws {
        func entry(_ name: String, _ fill: UInt8) -> [UInt8] { Array("100644 \(name)".utf8) + [0] + [UInt8](repeating: fill, count: 20) }
        let base = (0..<50).flatMap { entry("record-\($0).json", UInt8($0)) }
        let target = (0..<50).flatMap { $0 == 25 ? entry("record-25.json", 0xEE) : entry("record-\($0).json", UInt8($0)) }
        let delta = try #require(base.withUnsafeBytes { b in target.withUnsafeBytes { Delta.tree(from: b, to: $0) } })
        #expect(delta.count < 100)
        #expect(try delta.withUnsafeBytes { d in try base.withUnsafeBytes { try Delta.apply(d, to: $0) } } == target)
    }

    @Test func aMalformedDeltaIsRefusedNotFollowed() {
        let base = [UInt8](repeating: 1, count: 100)
        let cases: [(String, [UInt8])] = [
            ("wrong base size", [99, 10, 10] + [UInt8](repeating: 0, count: 10)),
            ("copy past the base", [100, 10, 0x91, 95, 10]),
            ("insert past the delta", [100, 10, 10, 1, 2]),
            ("result larger than its header", [100, 2, 0x90, 10]),
            ("result smaller than its header", [100, 20, 0x90, 10]),
            ("reserved instruction", [100, 1, 0]),
            ("cut-short copy", [100, 10, 0x91]),
            ("size header cut short", [0x80]),
        ]
        for (name, delta) in cases {
            #expect(throws: PackError.self, "\(name)") { try delta.withUnsafeBytes { d in try base.withUnsafeBytes { try Delta.apply(d, to: $0) } } }
        }
        // A 1 GiB result is refused from the header alone, before any memory is taken.
        let bomb: [UInt8] = [100, 0x80, 0x80, 0x80, 0x80, 0x04, 0x90, 100]
        #expect { try bomb.withUnsafeBytes { d in try base.withUnsafeBytes { try Delta.apply(d, to: $0, maximumSize: 1 << 20) } } } throws: {
            ($0 as? PackError)?.code == .tooLarge
        }
    }
}
